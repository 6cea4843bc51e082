// What every `zot ext` subcommand shares: its I/O, a small option parser, name checks.
import { zotPaths, type ZotPaths } from '../../config/paths.js';
import { discoverExtensions, type DiscoveredExtension } from '../../ext-setup/discovery.js';
import { checkExtensionName } from '../../ext-setup/names.js';
import { storedReplacement } from '../../ext-setup/trust.js';
import { DEFAULT_TOKEN_ENV } from '../../ext-setup/remote-config.js';
import { runChildEnvironment, type ChildEnvironment } from '../../security/child-env.js';
import { writeLine, type ModeIO } from '../../modes/io.js';
import { UsageError } from '../../util/errors.js';
import { terminalSafeBlock } from '../../util/terminal-text.js';
import { scanArgs, type OptionSpec } from '../options.js';

export type { OptionSpec } from '../options.js';

export interface ExtIO extends ModeIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export interface ExtContext extends ExtIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  paths: ZotPaths;
}

export function makeContext(io: ExtIO): ExtContext {
  return { ...io, cwd: process.cwd(), env: process.env, paths: zotPaths() };
}

/** One subcommand: `run` returns the exit code (0 ok, 1 failure) or throws UsageError (2). */
export interface ExtCommand {
  name: string;
  help: string;
  run(args: string[], context: ExtContext): Promise<number>;
}

export interface Parsed {
  flags: Set<string>;
  values: Map<string, string>;
  lists: Map<string, string[]>;
  positionals: string[];
}

/** The extensions `zot ext` sees from here: installed and the project's, as a run finds them. */
export function discoverHere(context: ExtContext): DiscoveredExtension[] {
  return discoverExtensions({
    cwd: context.cwd,
    zotHome: context.paths.home,
    extPaths: [],
    noExt: false,
    replaces: storedReplacement(context.paths),
  }).entries;
}

/**
 * What the extensions a `zot ext` command starts may see: zot's environment without its secrets,
 * remote tokens included (ZOT_EXT_TOKEN, `tokenEnv` from --ext-token-env, config.json's, and the
 * `token_env` of the user's manifests among `entries`; a project's may not strip variables).
 */
export function extChildEnvironment(
  context: ExtContext,
  tokenEnv?: string,
  entries: readonly DiscoveredExtension[] = [],
): ChildEnvironment {
  const names = [DEFAULT_TOKEN_ENV, ...(tokenEnv !== undefined ? [tokenEnv] : [])];
  for (const entry of entries) {
    const named = entry.manifest?.remote?.tokenEnv;
    if (named !== undefined && entry.scope !== 'project') names.push(named);
  }
  return runChildEnvironment(context.paths, { tokenNames: names });
}

/**
 * Parses `args` against `options`; `--x=v` and `--x v` both work, `--` ends options.
 * Contract: throws UsageError naming the command and the option for anything unknown.
 */
export function parseOptions(command: string, args: string[], options: OptionSpec[]): Parsed {
  const parsed: Parsed = { flags: new Set(), values: new Map(), lists: new Map(), positionals: [] };
  scanArgs(args, options, {
    prefix: `ext ${command}: `,
    help: seeHelp(command),
    onOption(spec, _name, value) {
      const key = keyOf(spec);
      if (value === undefined) parsed.flags.add(key);
      else if (spec.kind === 'value') parsed.values.set(key, value);
      else parsed.lists.set(key, [...(parsed.lists.get(key) ?? []), value]);
    },
    onPositional(arg) {
      parsed.positionals.push(arg);
    },
  });
  return parsed;
}

function keyOf(spec: OptionSpec): string {
  return spec.names.find((name) => name.startsWith('--')) ?? spec.names[0]!;
}

export function seeHelp(command: string): string {
  return `(see zot ext ${command} --help)`;
}

export function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  const options = end >= 0 ? args.slice(0, end) : args;
  return options.includes('--help') || options.includes('-h');
}

/** Exactly `count` positional arguments, named for the error message. */
export function positionals(command: string, parsed: Parsed, names: string[]): string[] {
  if (parsed.positionals.length < names.length) {
    throw new UsageError(
      `ext ${command} needs ${names.map((n) => `<${n}>`).join(' ')} ${seeHelp(command)}`,
    );
  }
  if (parsed.positionals.length > names.length) {
    const extra = parsed.positionals[names.length]!;
    throw new UsageError(`ext ${command}: unexpected argument ${JSON.stringify(extra)}`);
  }
  return parsed.positionals;
}

/** Design D3: a name never reaches the filesystem unchecked. */
export function requireName(command: string, name: string): string {
  const error = checkExtensionName(name);
  if (error) throw new UsageError(`ext ${command}: ${error}`);
  return name;
}

/** The one positional argument `<name>` of `command`, checked like requireName. */
export function nameArgument(command: string, parsed: Parsed): string {
  const [name] = positionals(command, parsed, ['name']);
  return requireName(command, name!);
}

// Everything a `zot ext` command prints for people goes through fail/info/out, which escape
// control characters and escape sequences: names, descriptions, paths and messages often come
// from manifests, extensions or file names. Fields that must not span lines are escaped with
// terminalSafe where they are formatted.

/** Prints `zot: message` on stderr and returns the failure exit code. */
export function fail(context: ModeIO, message: string): number {
  writeLine(context.stderr, terminalSafeBlock(`zot: ${message}`));
  return 1;
}

/** A diagnostic (a warning, a note beside the result, a question's answer) on stderr. */
export function info(context: ModeIO, message: string): void {
  writeLine(context.stderr, terminalSafeBlock(message));
}

/** The command's result (a report, what it made or changed) on stdout. */
export function out(context: ModeIO, text: string): void {
  writeLine(context.stdout, terminalSafeBlock(text));
}

// Valid inside JSON strings, and the only place they can occur: \u escapes keep the data the
// same for a parser and keep a terminal from acting on C1 controls, separators or bidi marks
// (JSON.stringify already escapes C0 controls, ESC included).
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Prints `value` as 2-space JSON on stdout: the data unchanged, safe on a terminal too. */
export function outJson(context: ModeIO, value: unknown): void {
  const text = JSON.stringify(value, null, 2).replace(
    JSON_UNSAFE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  writeLine(context.stdout, text);
}

/** Reads one line from stdin; an empty or closed stdin reads as ''. */
export async function readAnswer(stdin: ExtIO['stdin']): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const finish = () => {
      stdin.removeListener('data', onData);
      stdin.removeListener('end', finish);
      stdin.removeListener('error', finish);
      stdin.pause();
      resolve(text.split('\n')[0]!.trim());
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) finish();
    };
    stdin.on('data', onData);
    stdin.on('end', finish);
    stdin.on('error', finish);
    stdin.resume();
  });
}

/** Asks `question [y/N]` on stderr; only y or yes (any case) is a yes. */
export async function confirm(context: ExtContext, question: string): Promise<boolean> {
  context.stderr.write(`${terminalSafeBlock(question)} [y/N] `);
  const answer = await readAnswer(context.stdin);
  // A piped answer is not echoed: end the prompt's line ourselves.
  if (!context.stdin.isTTY) info(context, '');
  return /^y(es)?$/i.test(answer);
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
