// What every `zot ext` subcommand shares: its I/O, a small option parser, name checks.
import { zotPaths, type ZotPaths } from '../../config/paths.js';
import { checkExtensionName } from '../../extensions/names.js';
import { writeLine, type ModeIO } from '../../modes/io.js';
import { UsageError } from '../../util/errors.js';
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

/** DECISIONS 3: a name never reaches the filesystem unchecked. */
export function requireName(command: string, name: string): string {
  const error = checkExtensionName(name);
  if (error) throw new UsageError(`ext ${command}: ${error}`);
  return name;
}

/** Prints `zot: message` on stderr and returns the failure exit code. */
export function fail(context: ModeIO, message: string): number {
  writeLine(context.stderr, `zot: ${message}`);
  return 1;
}

export function info(context: ModeIO, message: string): void {
  writeLine(context.stderr, message);
}

export function out(context: ModeIO, text: string): void {
  writeLine(context.stdout, text);
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
