// The result of `zot ext test`: one entry per check, printed as lines for a person or as one
// JSON document for CI (the shape is documented in docs/extensions.md, "Testing your extension").
import { terminalSafe } from '../util/terminal-text.js';

export type Status = 'pass' | 'fail' | 'warn' | 'skip';

/** The closed vocabulary of checks, in the order they run. */
export const CHECK_NAMES = [
  'manifest',
  'scope',
  'connect',
  'hello',
  'register_command',
  'register_tool',
  'subscribe',
  'ready',
  'command',
  'tool',
  'tool_invalid_args',
  'details',
  'intercept',
  'events',
  'unknown_frame',
  'ui_request',
  'cancel',
  'tool_progress',
  'unregister_tool',
  'frames',
  'deadline',
  'shutdown',
  'processes',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export interface Check {
  check: CheckName;
  /** The command, tool or event the check is about. */
  target?: string;
  status: Status;
  message: string;
  /** How long the extension took to answer, when the check waited for an answer. */
  ms?: number;
  /** The offending line from the extension, raw (cut to FRAME_LIMIT characters). */
  frame?: string;
  /** The frame the kit sent, when the check is about its answer. */
  sent?: string;
}

/** The JSON document `--json` prints. Contract: `format` changes when a field changes meaning. */
export interface ReportJson {
  format: 'zot-ext-test/1';
  ok: boolean;
  extension: {
    name: string | null;
    version: string | null;
    /** The extension's directory; for a remote one (`--url`), its URL with credentials elided. */
    dir: string;
    /** Null for a remote extension (`--url`): it has none. */
    manifest: string | null;
    /** `--url` only: how it was reached. */
    remote?: { transport: 'websocket' | 'http'; url: string };
  };
  counts: Record<Status, number>;
  checks: Check[];
  stderr: string;
  stderr_truncated: boolean;
  timeouts_ms: Record<string, number>;
  duration_ms: number;
}

/** Raw frames kept in a check (JSON output) are cut to this many characters. */
export const FRAME_LIMIT = 2000;
/** Frames shown on a terminal are cut to this many characters (after escaping). */
const SHOWN_LIMIT = 240;
/** Lines of the extension's stderr shown after a failure. */
const STDERR_LINES = 30;

/** `text` cut to `limit` characters, saying how much was left out. Contract: never throws. */
export function cut(text: string, limit: number = FRAME_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** Collects checks in order. */
export class Checks {
  readonly list: Check[] = [];

  /** Records a check, its fields in the documented order, frames cut to FRAME_LIMIT. */
  add(check: Check): Check {
    const entry = { check: check.check } as Check;
    if (check.target !== undefined) entry.target = check.target;
    entry.status = check.status;
    entry.message = check.message;
    if (check.ms !== undefined) entry.ms = check.ms;
    if (check.frame !== undefined) entry.frame = cut(check.frame);
    if (check.sent !== undefined) entry.sent = cut(check.sent);
    this.list.push(entry);
    return entry;
  }

  /** Records a check that did not run; `message` says why. */
  skip(check: Pick<Check, 'check' | 'target'>, message: string): Check {
    return this.add({ ...check, status: 'skip', message });
  }

  get failed(): boolean {
    return this.list.some((check) => check.status === 'fail');
  }

  counts(): Record<Status, number> {
    const counts: Record<Status, number> = { pass: 0, fail: 0, warn: 0, skip: 0 };
    for (const check of this.list) counts[check.status]++;
    return counts;
  }
}

function label(check: Check): string {
  if (check.target === undefined) return check.check;
  const target = /^[\w.:/-]+$/.test(check.target) ? check.target : JSON.stringify(check.target);
  return `${check.check} ${target}`;
}

/**
 * The report for a person: a line per check (`pass  tool clock_now: ...`), the offending frame
 * under each failure and warning, a summary, and the extension's stderr after a failure.
 * Contract: every line is terminal-safe (one line each, escapes shown escaped).
 */
export function renderText(report: ReportJson): string[] {
  const lines: string[] = [];
  const { extension } = report;
  lines.push(
    terminalSafe(`zot ext test: ${extension.name ?? '(no valid name)'} (${extension.dir})`),
  );
  for (const check of report.checks) {
    lines.push(terminalSafe(`${check.status.padEnd(4)}  ${label(check)}: ${check.message}`));
    if (check.status === 'pass' || check.status === 'skip') continue;
    if (check.sent !== undefined) lines.push(`      sent:  ${shown(check.sent)}`);
    if (check.frame !== undefined) lines.push(`      frame: ${shown(check.frame)}`);
  }
  const { pass, fail, warn, skip } = report.counts;
  lines.push('');
  lines.push(`${fail} failed, ${warn} warning(s), ${pass} passed, ${skip} skipped`);
  if (fail > 0 && report.stderr.trim() !== '') {
    const all = report.stderr.replace(/\n$/, '').split('\n');
    const tail = all.slice(-STDERR_LINES);
    const more = report.stderr_truncated || all.length > tail.length;
    lines.push(`stderr of the extension${more ? ` (last ${tail.length} lines)` : ''}:`);
    for (const line of tail) lines.push(`  | ${terminalSafe(cut(line, SHOWN_LIMIT))}`);
  }
  return lines;
}

function shown(frame: string): string {
  return cut(terminalSafe(frame), SHOWN_LIMIT);
}
