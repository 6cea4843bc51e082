// Scanning command-line arguments against a table of options, shared by `zot` and `zot ext`:
// `--x=v` and `--x v` both work, `-` is a positional, `--` ends the options.
import { UsageError } from '../util/errors.js';

export type OptionKind = 'bool' | 'value' | 'list';

export interface OptionSpec {
  /** Every spelling, e.g. ['-f', '--follow']. */
  names: string[];
  kind: OptionKind;
}

export interface ScanHandlers<S extends OptionSpec> {
  /** Starts every error message, e.g. "ext install: " ('' for zot itself). */
  prefix: string;
  /** Ends the unknown-option message, e.g. "(see zot --help)". */
  help: string;
  /** One occurrence of an option; `value` is undefined for a bool. May throw UsageError. */
  onOption(spec: S, name: string, value: string | undefined): void;
  /** One positional; returning 'stop' ends the scan (the caller takes the rest itself). */
  onPositional(arg: string, index: number, afterDoubleDash: boolean): 'stop' | void;
}

/** Contract: throws UsageError for an unknown option, a value on a flag, or a missing value. */
export function scanArgs<S extends OptionSpec>(
  args: string[],
  specs: S[],
  handlers: ScanHandlers<S>,
): void {
  let onlyPositional = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (onlyPositional || !arg.startsWith('-') || arg === '-') {
      if (handlers.onPositional(arg, i, onlyPositional) === 'stop') return;
      continue;
    }
    if (arg === '--') {
      onlyPositional = true;
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = specs.find((candidate) => candidate.names.includes(name));
    if (!spec) throw new UsageError(`${handlers.prefix}unknown option ${name} ${handlers.help}`);
    if (spec.kind === 'bool') {
      if (eq > 0) throw new UsageError(`${handlers.prefix}${name} does not take a value`);
      handlers.onOption(spec, name, undefined);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new UsageError(`${handlers.prefix}${name} expects a value`);
    handlers.onOption(spec, name, value);
  }
}
