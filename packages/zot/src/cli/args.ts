// Table-driven parsing of zot's command line (the flags of the original Go zot).
import { redactUrl } from '../util/redact.js';
import { PROVIDER_NAMES } from '../config/auth.js';
import { isBaseUrl } from '../util/base-url.js';
import { UsageError } from '../util/errors.js';
import { scanArgs, type OptionSpec } from './options.js';

export type Mode = 'print' | 'json' | 'rpc' | 'acp' | 'interactive';

export interface CliOptions {
  command?: 'rpc' | 'acp' | 'auth' | 'ext' | 'permissions' | 'doctor' | 'rewind' | 'export';
  commandArgs: string[];
  prompt: string[];
  print: boolean;
  json: boolean;
  mode?: Mode;
  provider?: string;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  systemPrompt?: string;
  appendSystemPrompt: string[];
  reasoning?: 'low' | 'medium' | 'high';
  cwd?: string;
  noTools: boolean;
  tools?: string[];
  maxSteps: number;
  continue: boolean;
  /** -r/--resume: pick the session to resume in the interactive UI at launch. */
  resume: boolean;
  session?: string;
  noSession: boolean;
  /** --no-checkpoints: no working-tree checkpoints this run. */
  noCheckpoints: boolean;
  listModels: boolean;
  extPaths: string[];
  /** --ext-url: remote extensions for this run (docs/remote-extensions.md). */
  extUrls: string[];
  /** --ext-token-env NAME: the variable --ext-url tokens come from (default ZOT_EXT_TOKEN). */
  extTokenEnv?: string;
  /** --insecure-ext-transport: ws:// and http:// beyond loopback addresses. */
  insecureExtTransport: boolean;
  noExt: boolean;
  noYolo: boolean;
  /** zot acp --client-terminal: bash runs in the editor's terminals (docs/acp.md). */
  clientTerminal: boolean;
  /** --allow/--ask/--deny RULE: permission rules for this run (docs/security.md). */
  allow: string[];
  ask: string[];
  deny: string[];
  /** --sandbox: this run's sandbox mode (default: config.json's, else off). */
  sandbox?: 'off' | 'on' | 'required';
  /** --no-skill: no skill tool, no skill list. */
  noSkill: boolean;
  /** --no-context-files: no AGENTS.md / CLAUDE.md in the system prompt. */
  noContextFiles: boolean;
  /** --with-skills: accepted for compatibility; skills load by default. */
  withSkills: boolean;
  version: boolean;
  help: boolean;
}

interface FlagSpec extends OptionSpec {
  key: keyof CliOptions;
  choices?: readonly string[];
  parse?: (value: string, flag: string) => unknown;
}

const positiveInt = (value: string, flag: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`${flag} expects a positive integer, got "${value}"`);
  }
  return Number(value);
};
const csv = (value: string, flag: string): string[] => {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0)
    throw new UsageError(`${flag} expects a comma-separated list of tool names`);
  return items;
};

const baseUrl = (value: string, flag: string): string => {
  if (!isBaseUrl(value)) {
    throw new UsageError(
      `${flag} expects an http:// or https:// URL (e.g. http://localhost:8000/v1), ` +
        `got "${redactUrl(value)}"`,
    );
  }
  return value.trim();
};

const envName = (value: string, flag: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
    throw new UsageError(`${flag} expects an environment variable name, got "${value}"`);
  return value;
};

const FLAGS: FlagSpec[] = [
  { names: ['-p', '--print'], kind: 'bool', key: 'print' },
  { names: ['--json'], kind: 'bool', key: 'json' },
  {
    names: ['--mode'],
    kind: 'value',
    key: 'mode',
    choices: ['print', 'json', 'rpc', 'interactive'],
  },
  { names: ['--provider'], kind: 'value', key: 'provider', choices: PROVIDER_NAMES },
  { names: ['--model'], kind: 'value', key: 'model' },
  { names: ['--api-key'], kind: 'value', key: 'apiKey' },
  { names: ['--base-url'], kind: 'value', key: 'baseUrl', parse: baseUrl },
  { names: ['--system-prompt'], kind: 'value', key: 'systemPrompt' },
  { names: ['--append-system-prompt'], kind: 'list', key: 'appendSystemPrompt' },
  { names: ['--reasoning'], kind: 'value', key: 'reasoning', choices: ['low', 'medium', 'high'] },
  { names: ['--cwd'], kind: 'value', key: 'cwd' },
  { names: ['--no-tools'], kind: 'bool', key: 'noTools' },
  { names: ['--tools'], kind: 'value', key: 'tools', parse: csv },
  { names: ['--max-steps'], kind: 'value', key: 'maxSteps', parse: positiveInt },
  { names: ['-c', '--continue'], kind: 'bool', key: 'continue' },
  { names: ['-r', '--resume'], kind: 'bool', key: 'resume' },
  { names: ['--session'], kind: 'value', key: 'session' },
  { names: ['--no-session'], kind: 'bool', key: 'noSession' },
  { names: ['--no-checkpoints'], kind: 'bool', key: 'noCheckpoints' },
  { names: ['--list-models'], kind: 'bool', key: 'listModels' },
  { names: ['-e', '--ext'], kind: 'list', key: 'extPaths' },
  { names: ['--no-ext'], kind: 'bool', key: 'noExt' },
  { names: ['--ext-url'], kind: 'list', key: 'extUrls' },
  { names: ['--ext-token-env'], kind: 'value', key: 'extTokenEnv', parse: envName },
  { names: ['--insecure-ext-transport'], kind: 'bool', key: 'insecureExtTransport' },
  { names: ['--no-yolo'], kind: 'bool', key: 'noYolo' },
  { names: ['--client-terminal'], kind: 'bool', key: 'clientTerminal' },
  { names: ['--allow'], kind: 'list', key: 'allow' },
  { names: ['--ask'], kind: 'list', key: 'ask' },
  { names: ['--deny'], kind: 'list', key: 'deny' },
  { names: ['--sandbox'], kind: 'value', key: 'sandbox', choices: ['off', 'on', 'required'] },
  { names: ['--no-skill', '--no-skills'], kind: 'bool', key: 'noSkill' },
  // The original's opt-in flag; skills load by default here, so it changes nothing.
  { names: ['--with-skills'], kind: 'bool', key: 'withSkills' },
  { names: ['--no-context-files'], kind: 'bool', key: 'noContextFiles' },
  { names: ['-v', '--version'], kind: 'bool', key: 'version' },
  { names: ['-h', '--help'], kind: 'bool', key: 'help' },
];

const SUBCOMMANDS = new Set([
  'rpc',
  'acp',
  'auth',
  'ext',
  'permissions',
  'doctor',
  'rewind',
  'export',
]);

function defaults(): CliOptions {
  return {
    commandArgs: [],
    prompt: [],
    print: false,
    json: false,
    appendSystemPrompt: [],
    noTools: false,
    maxSteps: 50,
    continue: false,
    resume: false,
    noSession: false,
    noCheckpoints: false,
    listModels: false,
    extPaths: [],
    extUrls: [],
    insecureExtTransport: false,
    noExt: false,
    noYolo: false,
    clientTerminal: false,
    allow: [],
    ask: [],
    deny: [],
    noSkill: false,
    withSkills: false,
    noContextFiles: false,
    version: false,
    help: false,
  };
}

/**
 * Parses argv (without node and script). `auth` and `ext` take the rest of the line as their
 * own arguments; `rpc` and `acp` accept the normal flags.
 * Contract: throws UsageError naming the flag for unknown flags and bad values.
 */
export function parseArgs(argv: string[]): CliOptions {
  const options = defaults();
  const record = options as unknown as Record<string, unknown>;
  scanArgs(argv, FLAGS, {
    prefix: '',
    help: '(see zot --help)',
    onOption(spec, name, value) {
      if (value === undefined) {
        record[spec.key] = true;
        return;
      }
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(`${name} must be one of ${spec.choices.join(', ')}; got "${value}"`);
      }
      const parsed = spec.parse ? spec.parse(value, name) : value;
      if (spec.kind === 'list') (record[spec.key] as unknown[]).push(parsed);
      else record[spec.key] = parsed;
    },
    onPositional(arg, index, afterDoubleDash) {
      const first = options.command === undefined && options.prompt.length === 0;
      if (!first || afterDoubleDash || !SUBCOMMANDS.has(arg)) {
        options.prompt.push(arg);
        return;
      }
      options.command = arg as CliOptions['command'];
      if (arg === 'rpc' || arg === 'acp') return;
      options.commandArgs = argv.slice(index + 1);
      return 'stop';
    },
  });
  if (options.noSession && (options.continue || options.session)) {
    throw new UsageError('--no-session cannot be combined with --continue or --session');
  }
  if (options.resume && (options.continue || options.session || options.noSession)) {
    throw new UsageError(
      '-r/--resume picks a session itself: it cannot be combined with --continue, --session or --no-session',
    );
  }
  if (options.clientTerminal && options.command !== 'acp')
    throw new UsageError(
      "--client-terminal is a `zot acp` option (bash in the editor's terminals)",
    );
  if (options.noTools && options.tools)
    throw new UsageError('--no-tools cannot be combined with --tools');
  return options;
}

/** The mode a parsed command line asks for. */
export function selectMode(options: CliOptions): Mode {
  if (options.command === 'rpc') return 'rpc';
  if (options.command === 'acp') return 'acp';
  if (options.mode) return options.mode;
  if (options.json) return 'json';
  if (options.print) return 'print';
  return 'interactive';
}
