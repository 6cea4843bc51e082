// Builds the Session a mode drives from the parsed command line and $ZOT_HOME.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AuthStore, missingKeyMessage, resolveApiKey } from '../config/auth.js';
import { zotPaths, type ZotPaths } from '../config/paths.js';
import { loadSettings, saveSettings } from '../config/settings.js';
import {
  defaultBaseUrl,
  listModels,
  parseModelsJson,
  providerNeedsKey,
  resolveModel,
  streamFor,
} from '../providers/index.js';
import type { ModelInfo, ProviderName } from '../providers/types.js';
import { BUILTIN_COMMANDS } from '../session/commands.js';
import { Session } from '../session/session.js';
import { newestSession, newSessionPath, openSession, SessionWriter } from '../session/store.js';
import { buildSystemPrompt } from '../session/system-prompt.js';
import { ToolRegistry } from '../session/tool-registry.js';
import { BUILTIN_TOOL_NAMES, builtinTools } from '../tools/index.js';
import { UsageError } from '../util/errors.js';
import type { CliOptions, Mode } from './args.js';
import { zotVersion } from './version.js';

export interface Runtime {
  session: Session;
  /** Aborts work and shuts extensions down. Contract: never rejects. */
  dispose(): Promise<void>;
  paths: ZotPaths;
  provider: ProviderName;
  version: string;
}

export type Warn = (message: string) => void;

function resolveCwd(option: string | undefined): string {
  const cwd = resolve(option ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new UsageError(`--cwd: not a directory: ${cwd}`);
  }
  return cwd;
}

function extraModels(paths: ZotPaths, warn: Warn): ModelInfo[] {
  if (!existsSync(paths.models)) return [];
  const { models, errors } = parseModelsJson(readFileSync(paths.models, 'utf8'), paths.models);
  for (const error of errors) warn(error);
  return models;
}

/** Picks provider and model: flags, then config.json, then the catalog default. */
export function resolveProviderModel(options: CliOptions, paths: ZotPaths, warn: Warn) {
  const { settings, warning } = loadSettings(paths.config);
  if (warning) warn(warning);
  const provider = (options.provider ?? settings.provider ?? 'anthropic') as ProviderName;
  const extra = extraModels(paths, warn);
  const id = options.model ?? (settings.provider === provider ? settings.model : undefined);
  const { model, known } = resolveForRun(provider, id, extra, options.baseUrl);
  return { provider, model, known, extra };
}

/**
 * The catalog lookup, except that a model OpenAI does not list, on a server of your own, is
 * taken to be served by an OpenAI-compatible server (vLLM, llama.cpp, LM Studio ...): those
 * speak Chat Completions, not Responses. models.json can still say otherwise.
 */
function resolveForRun(
  provider: ProviderName,
  id: string | undefined,
  extra: ModelInfo[],
  baseUrl?: string,
) {
  const resolved = resolveModel(provider, id, extra);
  const compatible = !resolved.known && provider === 'openai' && baseUrl !== undefined;
  return compatible
    ? { ...resolved, model: { ...resolved.model, api: 'openai-chat' as const } }
    : resolved;
}

function selectTools(options: CliOptions) {
  if (options.noTools) return [];
  const all = builtinTools({});
  if (!options.tools) return all;
  const unknown = options.tools.filter((name) => !BUILTIN_TOOL_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--tools: unknown tool ${unknown.join(', ')} (available: ${BUILTIN_TOOL_NAMES.join(', ')})`,
    );
  }
  return all.filter((tool) => options.tools!.includes(tool.name));
}

function sessionPath(options: CliOptions, mode: Mode, paths: ZotPaths, cwd: string, warn: Warn) {
  if (options.noSession) return undefined;
  let path: string | undefined;
  if (options.session) path = resolve(options.session);
  else if (options.continue) {
    path = newestSession(paths.sessions, cwd);
    if (!path) warn('no earlier session in this directory; starting a new one');
  } else if (mode === 'rpc') return undefined;
  return path ?? newSessionPath(paths.sessions, cwd);
}

/** Whether any extension could load; avoids importing the host (and its schemas) otherwise. */
function mayHaveExtensions(options: CliOptions, cwd: string, paths: ZotPaths): boolean {
  if (options.extPaths.length > 0) return true;
  if (options.noExt) return false;
  const nonEmpty = (dir: string) => {
    try {
      return readdirSync(dir).length > 0;
    } catch {
      return false;
    }
  };
  return nonEmpty(join(cwd, '.zot', 'extensions')) || nonEmpty(paths.extensions);
}

async function createHost(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
  version: string,
  model: () => ModelInfo,
) {
  if (!mayHaveExtensions(options, cwd, paths)) return undefined;
  const { ExtensionHost } = await import('../extensions/host.js');
  const { trustGate } = await import('../extensions/trust.js');
  return new ExtensionHost({
    cwd,
    zotHome: paths.home,
    logsDir: paths.logs,
    extPaths: options.extPaths,
    noExt: options.noExt,
    version,
    model: () => ({ provider: model().provider, model: model().id }),
    builtins: { commands: new Set(BUILTIN_COMMANDS), tools: new Set(BUILTIN_TOOL_NAMES) },
    allow: trustGate(paths, process.env),
  });
}

/** Contract: throws UsageError for bad input and Error for runtime problems (missing key). */
export async function createRuntime(options: CliOptions, mode: Mode, warn: Warn): Promise<Runtime> {
  const cwd = resolveCwd(options.cwd);
  const paths = zotPaths();
  const { provider, model, known, extra } = resolveProviderModel(options, paths, warn);
  if (!known) {
    warn(
      `model "${model.id}" is not in the ${provider} catalog; using default limits ` +
        `(context ${model.contextWindow}, max output ${model.maxTokens})` +
        (model.api === 'openai-chat' && provider === 'openai'
          ? ' and the Chat Completions API'
          : ''),
    );
  }
  const key = resolveApiKey(provider, options.apiKey, process.env, new AuthStore(paths.auth));
  if (!key && providerNeedsKey(provider) && !options.baseUrl) {
    throw new Error(missingKeyMessage(provider, paths.auth));
  }
  const version = zotVersion();
  const path = sessionPath(options, mode, paths, cwd, warn);
  let current: Session | undefined;
  const header = () => ({
    type: 'session' as const,
    version: 1,
    cwd,
    created: new Date().toISOString(),
    provider,
    model: (current?.currentModel ?? model).id,
    zot_version: version,
  });
  const opened = path ? openSession(path, header) : undefined;
  // `/new` opens another file beside it, the same way a new run would.
  const newWriter = () => new SessionWriter(newSessionPath(paths.sessions, cwd), header);
  if (options.provider || options.model) {
    try {
      saveSettings(paths.config, { provider, model: model.id });
    } catch (error) {
      warn(`could not save ${paths.config}: ${(error as Error).message}`);
    }
  }
  const extensions = await createHost(
    options,
    cwd,
    paths,
    version,
    () => current?.currentModel ?? model,
  );
  const session = new Session({
    ...(extensions ? { extensions } : {}),
    cwd,
    model,
    baseUrlFor: (m) => options.baseUrl ?? m.baseUrl ?? defaultBaseUrl(provider),
    ...(key ? { apiKey: key.key } : {}),
    systemPrompt: buildSystemPrompt({
      cwd,
      ...(options.systemPrompt !== undefined ? { override: options.systemPrompt } : {}),
      systemFile: paths.systemPrompt,
      append: options.appendSystemPrompt,
    }),
    ...(options.reasoning ? { reasoning: options.reasoning } : {}),
    maxSteps: options.maxSteps,
    tools: new ToolRegistry(selectTools(options)),
    stream: streamFor,
    resolveModel: (id) => resolveForRun(provider, id, extra, options.baseUrl).model,
    listModels: () => listModels(provider, extra),
    ...(opened ? { writer: opened.writer, warnings: opened.warnings, newWriter } : {}),
    messages: opened?.messages ?? [],
  });
  current = session;
  return { session, paths, provider, version, dispose: () => session.dispose() };
}
