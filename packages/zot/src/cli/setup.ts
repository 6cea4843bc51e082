// Builds the Session a mode drives from the parsed command line and $ZOT_HOME.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { MAX_JSON_FILE_BYTES } from '../config/json-file.js';
import { resolveToolOutputDir, zotPaths, type ZotPaths } from '../config/paths.js';
import { firstShowing } from '../config/notices.js';
import { loadSettings } from '../config/settings.js';
import { defaultModelId, parseModelsJson, streamFor } from '../providers/index.js';
import type { ModelInfo, ProviderName } from '../providers/types.js';
import { RESUMED_MESSAGES_DRAWN } from '../contract/front-end.js';
import { BUILTIN_COMMANDS } from '../session/commands.js';
import { Session } from '../session/session.js';
import { sessionFiles } from '../session/session-files.js';
import { newestSession, newSessionPath, openSession } from '../session/store.js';
import { buildSystemPrompt } from '../session/system-prompt.js';
import { ToolRegistry } from '../session/tool-registry.js';
import { CheckpointStore } from '../session/checkpoints/store.js';
import type { CheckpointEntry } from '../session/load.js';
import type { CheckpointSetup } from '../session/session-options.js';
import { loadCheckpointSettings } from '../config/checkpoint-settings.js';
import { builtinTools, FileRoute, RESERVED_TOOL_NAMES, type FileGuard } from '../tools/index.js';
import { SandboxController } from '../security/sandbox/controller.js';
import { loadSandbox } from '../security/sandbox/load.js';
import type { Tool } from '../agent/tool.js';
import { findContextFiles } from '../session/context-files.js';
import { runChildEnvironment, type ChildEnvironment } from '../security/child-env.js';
import { setupSkills } from './skills-setup.js';
import { UsageError } from '../util/errors.js';
import { readRegularText } from '../util/regular-file.js';
import type { CliOptions, Mode } from './args.js';
import type { ProjectTrust } from '../ext-setup/project-trust.js';
import { DEFAULT_TOKEN_ENV } from '../ext-setup/remote-config.js';
import type { TrustAccess } from '../session/trust.js';
import type { RuleFiles } from '../session/permission-files.js';
import {
  createProviderAccess,
  type ConfiguredModels,
  type RunProviderAccess,
} from './provider-access.js';
import { displayBaseUrl } from '../util/base-url.js';
import { LoadOnce } from '../util/load-once.js';
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

/**
 * models.json's models and skipped entries.
 * Contract: throws an Error naming the file when it cannot be used at all (not a list of
 * models) or an entry's base URL is invalid: where requests go is never guessed.
 */
function configuredModels(paths: ZotPaths, warn: Warn): ConfiguredModels {
  const none = { path: paths.models, models: [], rejected: [] };
  const read = readRegularText(paths.models, { limit: MAX_JSON_FILE_BYTES });
  if (!read.ok) {
    if (read.missing) return none;
    throw new Error(read.error);
  }
  const { models, errors, rejected, fatal } = parseModelsJson(read.text, paths.models);
  for (const error of errors) warn(error);
  if (fatal.length > 0) {
    throw new Error(
      `${fatal.join('; ')} (zot does not guess what models.json meant: fix it and run again)`,
    );
  }
  return { path: paths.models, models, rejected };
}

/**
 * Picks provider and model id: the flags, then config.json (what /model saved), then the
 * provider's default. Flags are for this run only: nothing here is saved. `id` is undefined
 * for a provider whose server alone knows its models (see serverDefault).
 */
export function chooseProviderModel(options: CliOptions, paths: ZotPaths, warn: Warn) {
  const { settings, warning } = loadSettings(paths.config);
  if (warning) warn(warning);
  const provider = (options.provider ?? settings.provider ?? 'anthropic') as ProviderName;
  const configured = configuredModels(paths, warn);
  const saved = settings.provider === provider ? settings.model : undefined;
  const id = options.model ?? saved ?? defaultModelId(provider);
  return { provider, id, configured };
}

/** The thinking level: --reasoning, else what shift+tab or /settings saved (config.json). */
function reasoningOf(
  options: CliOptions,
  paths: ZotPaths,
): { reasoning?: 'low' | 'medium' | 'high' } {
  const level = options.reasoning ?? loadSettings(paths.config).settings.reasoning;
  return level && level !== 'off' ? { reasoning: level } : {};
}

/**
 * The first model a provider's server lists, for a provider without a default model (LM
 * Studio, vLLM, llama.cpp); said once.
 * Contract: throws an Error saying how to go on when the server cannot tell.
 */
async function serverDefault(
  access: RunProviderAccess,
  provider: ProviderName,
  paths: ZotPaths,
  warn: Warn,
): Promise<ModelInfo> {
  const how = 'name the model with --model <id>';
  const listed = await access.serverModels(provider);
  if (!listed.ok) {
    throw new Error(
      `${provider} has no default model, and its server could not be asked for its models ` +
        `(${listed.error}). Is the server running? Or ${how}.`,
    );
  }
  const first = listed.ids[0];
  if (first === undefined) {
    const url = displayBaseUrl(access.providerUrl(provider));
    throw new Error(`the ${provider} server at ${url} lists no models: load one, or ${how}.`);
  }
  const note = `using ${provider}/${first}, the first model its server lists (--model or /model choose another)`;
  if (firstShowing(paths.notices, `server-default:${provider}`, note)) warn(note);
  return access.model(provider, first);
}

/** The built-in tools of this run; `skill` is one of them unless --no-skill. */
function selectTools(
  options: CliOptions,
  skill: Tool | undefined,
  sandbox: SandboxController,
  children: ChildEnvironment,
  route: FileRoute,
) {
  if (options.noTools) return [];
  const guard: FileGuard = (tool, path, operation) => sandbox.fileDenial(tool, path, operation);
  const all = [
    ...builtinTools({ guard, route, bash: { sandbox, scrubEnv: children.scrub, route } }),
    ...(skill ? [skill] : []),
  ];
  if (!options.tools) return all;
  const names = all.map((tool) => tool.name);
  const unknown = options.tools.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(
      `--tools: unknown tool ${unknown.join(', ')} (available: ${names.join(', ')})`,
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
  // ACP: every session is recorded (session/load finds it), unless --no-session.
  return path ?? newSessionPath(paths.sessions, cwd);
}

/** Whether any extension could load; avoids importing the host (and its schemas) otherwise. */
function mayHaveExtensions(options: CliOptions, cwd: string, paths: ZotPaths): boolean {
  if (options.extPaths.length > 0 || options.extUrls.length > 0) return true;
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

/** What the extension host is built from: the run's own parts, gathered once. */
interface HostInputs {
  options: CliOptions;
  cwd: string;
  paths: ZotPaths;
  version: string;
  model: () => ModelInfo;
  loadTrust: () => Promise<ProjectTrust>;
  children: ChildEnvironment;
  sandbox: SandboxController;
  extensionEnv?: ExtensionEnv | undefined;
}

async function createHost(inputs: HostInputs) {
  if (!mayHaveExtensions(inputs.options, inputs.cwd, inputs.paths)) return undefined;
  return createHostNow(inputs);
}

/**
 * One trust gate per runtime, loaded on first use: the host's gate and the trust dialog share
 * the run-once answers.
 */
function lazyTrust(
  cwd: string,
  paths: ZotPaths,
  noExt: boolean,
): { load(): Promise<ProjectTrust>; access: TrustAccess } {
  const trust = new LoadOnce(() =>
    import('../ext-setup/project-trust.js').then(
      ({ ProjectTrust }) => new ProjectTrust({ paths, cwd, env: process.env, noExt }),
    ),
  );
  const load = () => trust.load();
  return {
    load,
    access: {
      reviews: async () => (await load()).reviews(),
      decide: async (dir, hash, decision, replaces) =>
        (await load()).decide(dir, hash, decision, replaces),
    },
  };
}

/** The host, loaded on demand: the print/JSON path without extensions never imports it. */
async function createHostNow(inputs: HostInputs) {
  const { options, cwd, paths, version, model, loadTrust, children, sandbox, extensionEnv } =
    inputs;
  const { ExtensionHost } = await import('../extensions/host.js');
  const { ExtensionScopes } = await import('../extensions/scopes.js');
  const trust = await loadTrust();
  return new ExtensionHost({
    cwd,
    zotHome: paths.home,
    logsDir: paths.logs,
    extPaths: options.extPaths,
    noExt: options.noExt,
    version,
    model: () => ({ provider: model().provider, model: model().id }),
    builtins: { commands: new Set(BUILTIN_COMMANDS), tools: new Set(RESERVED_TOOL_NAMES) },
    allow: trust.gate,
    replaces: trust.mayReplace,
    processPolicy: (entry) => {
      const extra = entry.manifest ? extensionEnv?.[entry.manifest.name] : undefined;
      if (!extra) return { scrubEnv: children.scrub };
      return { scrubEnv: (env) => ({ ...children.scrub(env), ...extra }) };
    },
    remote: {
      urls: options.extUrls,
      tokenEnv: options.extTokenEnv,
      insecure: options.insecureExtTransport,
      authPath: paths.auth,
      configPath: paths.config,
      tokenNames: (names) => children.addTokenNames(names),
      // The providers' proxy settings; loaded with the first remote connection only.
      agent: async (url) => (await import('../providers/transport.js')).connectionAgent(url),
    },
    // Decided at each start (and restart) with the mode of that moment: /sandbox switches it.
    scopes: new ExtensionScopes({
      settings: () => ({ ...sandbox.settings, mode: sandbox.mode }),
      project: cwd,
      home: homedir(),
      zotHome: paths.home,
    }),
  });
}

/** The run's sandbox: config.json, tightened by the project, with --sandbox for the mode. */
function createSandbox(options: CliOptions, cwd: string, paths: ZotPaths, warn: Warn) {
  const home = homedir();
  const loaded = loadSandbox({
    configPath: paths.config,
    project: cwd,
    home,
    ...(options.sandbox ? { cliMode: options.sandbox } : {}),
  });
  for (const warning of loaded.warnings) warn(warning);
  return new SandboxController({
    settings: loaded.settings,
    floor: loaded.floor,
    floorSource: loaded.floorSource,
    networkSetting: loaded.networkSetting,
    project: cwd,
    home,
    zotHome: paths.home,
    // Cut results say where their full text is; the model reads it there, even when that is
    // $ZOT_HOME/tool-output.
    readable: () => [resolveToolOutputDir()],
  });
}

/**
 * The run's permission rules, loaded only when some could exist (a flag, a mention in
 * config.json, a project settings file): a run without rules loads none of their code.
 * Contract: throws UsageError for a bad --allow/--ask/--deny rule.
 */
async function permissionRules(options: CliOptions, cwd: string, paths: ZotPaths, warn: Warn) {
  const flagged = options.allow.length + options.ask.length + options.deny.length > 0;
  let mentioned: boolean;
  try {
    mentioned = readFileSync(paths.config, 'utf8').includes('permissions');
  } catch (error) {
    mentioned = (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  const project = join(cwd, '.zot', 'settings.json');
  let trusted = true; // the project's allow list, when it has one, was trusted at start
  const files: RuleFiles = {
    user: paths.config,
    project,
    async repinProjectAllow() {
      if (!trusted) return undefined;
      const { trustProjectAllow } = await import('./permissions-setup.js');
      return trustProjectAllow(cwd, paths, true);
    },
  };
  if (!flagged && !mentioned && !existsSync(project)) return { files };
  const { loadPermissions, permissionEngine } = await import('./permissions-setup.js');
  const loaded = loadPermissions(options, cwd, paths);
  trusted = loaded.projectAllow === 'none' || loaded.projectAllow === 'trusted';
  for (const problem of loaded.problems) warn(problem);
  const rules = permissionEngine(loaded, cwd);
  return rules ? { rules, files } : { files };
}

/**
 * Contract: throws UsageError for bad input and Error for runtime problems (an invalid base URL
 * in models.json, an unreadable session file). A missing API key is not one of them: the session
 * reports it when a model call is about to happen.
 */
/** Variables for one extension's process, by extension name (`zot acp` hands the bridge the editor's MCP servers). */
export type ExtensionEnv = Readonly<Record<string, Readonly<Record<string, string>>>>;

export async function createRuntime(
  options: CliOptions,
  mode: Mode,
  warn: Warn,
  extensionEnv?: ExtensionEnv,
): Promise<Runtime> {
  const cwd = resolveCwd(options.cwd);
  const paths = zotPaths();
  const { provider, id, configured } = chooseProviderModel(options, paths, warn);
  const providers = createProviderAccess({ options, paths, start: provider, configured });
  providers.providerUrl(provider); // a bad base URL variable is a usage error now
  const model =
    id !== undefined
      ? providers.model(provider, id)
      : await serverDefault(providers, provider, paths, warn);
  const version = zotVersion();
  const permissions = await permissionRules(options, cwd, paths, warn);
  const path = sessionPath(options, mode, paths, cwd, warn);
  let current: Session | undefined;
  const header = () => ({
    type: 'session' as const,
    version: 1,
    cwd,
    created: new Date().toISOString(),
    provider: (current?.currentModel ?? model).provider,
    model: (current?.currentModel ?? model).id,
    zot_version: version,
  });
  // The TUI draws a resumed session's newest messages first and reads the rest after that frame.
  const defer = mode === 'interactive' ? { deferAfter: RESUMED_MESSAGES_DRAWN } : {};
  const opened = path ? openSession(path, header, paths.sessions, defer) : undefined;
  // `/new` and `/sessions` work on the files beside it, the same way a new run would.
  const files = options.noSession ? undefined : sessionFiles(paths.sessions, cwd, header);
  const sandbox = createSandbox(options, cwd, paths, warn);
  // What bash commands and extensions see: zot's environment without its own secrets.
  // Remote extensions' bearer tokens are secrets too: ZOT_EXT_TOKEN, --ext-token-env's variable,
  // config.json's, and those the manifests name once the host has read them.
  const children = runChildEnvironment(paths, {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    tokenNames: [DEFAULT_TOKEN_ENV, ...(options.extTokenEnv ? [options.extTokenEnv] : [])],
  });
  for (const warning of children.warnings) warn(warning);
  const trust = lazyTrust(cwd, paths, options.noExt);
  const currentModel = () => current?.currentModel ?? model;
  const hostInputs: HostInputs = {
    options,
    cwd,
    paths,
    version,
    model: currentModel,
    loadTrust: trust.load,
    children,
    sandbox,
    extensionEnv,
  };
  const extensions = await createHost(hostInputs);
  // A one-shot run waits for its extensions before the first model request: they boot while
  // the rest of zot starts. (The TUI and RPC start them once their front end is connected.)
  if (mode === 'print' || mode === 'json') extensions?.startEarly();
  const withExtensions = mayHaveExtensions(options, cwd, paths);
  const skills = options.noSkill
    ? undefined
    : await setupSkills(options, cwd, paths, withExtensions, (tool, path, operation) =>
        sandbox.fileDenial(tool, path, operation),
      );
  for (const warning of skills?.catalog.warnings ?? []) warn(warning);
  const route = new FileRoute();
  const tools = selectTools(options, skills?.tool, sandbox, children, route);
  // The list is for the model's use of the tool: no tool, no list.
  const listed = tools.some((tool) => tool.name === 'skill') ? skills!.catalog.skills : [];
  const session = new Session({
    ...(extensions ? { extensions } : {}),
    loadExtensions: () => createHostNow(hostInputs),
    cwd,
    model,
    providers,
    systemPrompt: buildSystemPrompt({
      cwd,
      ...(options.systemPrompt !== undefined ? { override: options.systemPrompt } : {}),
      systemFile: paths.systemPrompt,
      append: options.appendSystemPrompt,
      ...(options.noContextFiles ? {} : { contextFiles: findContextFiles(cwd, warn) }),
      skills: listed,
    }),
    ...reasoningOf(options, paths),
    maxSteps: options.maxSteps,
    tools: new ToolRegistry(tools),
    ...(skills ? { skills: skills.reread, skillBody: skills.body } : {}),
    stream: streamFor,
    ...(files ? { files } : {}),
    ...(opened ? { writer: opened.writer, warnings: opened.warnings, usage: opened.usage } : {}),
    ...(opened?.name !== undefined ? { sessionName: opened.name } : {}),
    messages: opened?.messages ?? [],
    ...(opened?.deferred ? { deferred: opened.deferred } : {}),
    trust: trust.access,
    ...(permissions.rules ? { rules: permissions.rules } : {}),
    ruleFiles: permissions.files,
    askByDefault: options.noYolo,
    sandbox,
    configPath: paths.config,
    fileRoute: route,
    ...checkpointSetup(options, cwd, paths, opened?.checkpoints, warn),
  });
  current = session;
  return { session, paths, provider, version, dispose: () => session.dispose() };
}

/** The checkpoint store of this directory, unless --no-checkpoints or the setting turns it off. */
function checkpointSetup(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
  recorded: CheckpointEntry[] | undefined,
  warn: Warn,
): { checkpoints?: CheckpointSetup } {
  if (options.noCheckpoints) return {};
  const { settings, warnings } = loadCheckpointSettings(paths.config);
  for (const warning of warnings) warn(warning);
  if (!settings.enabled) return {};
  const store = CheckpointStore.for(cwd, paths.home, {
    maxFileBytes: settings.maxFileBytes,
    maxTotalBytes: settings.maxTotalBytes,
    maxFiles: settings.maxFiles,
  });
  return {
    checkpoints: {
      store,
      prune: { keepDays: settings.keepDays, maxStoreBytes: settings.maxStoreBytes },
      ...(recorded ? { recorded } : {}),
    },
  };
}
