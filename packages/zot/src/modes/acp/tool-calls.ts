// zot's tool events as ACP tool calls: `tool_call` when the model calls, `tool_call_update`
// for progress and the result (status, raw output, edits as diff content, locations).
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { SessionEvent } from '../../contract/events.js';
import type { ToolDetails } from '../../contract/tool-details.js';
import type { OldTexts } from './old-text.js';

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

/** How much streamed output a running call shows (its tail), and how often it is resent. */
export const PROGRESS_TAIL_CHARS = 16_000;
export const PROGRESS_INTERVAL_MS = 100;

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  write: 'edit',
  edit: 'edit',
  bash: 'execute',
  skill: 'read',
};

/** The ACP kind of a tool: built-ins by name, fetch-like extension tools, else `other`. */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? (/fetch|http|web|url/i.test(name) ? 'fetch' : 'other');
}

/** An absolute path for `path` as a tool took it (relative to cwd, `~` expanded). */
export function absolutePath(path: string, cwd: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function stringArg(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function locationsOf(args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const path = stringArg(args, 'path');
  if (path === undefined) return [];
  const line = typeof args.offset === 'number' ? args.offset : undefined;
  return [{ path: absolutePath(path, cwd), ...(line !== undefined ? { line } : {}) }];
}

/** Each hunk of an edit as an ACP diff: the lines it shows before and after. */
function diffContent(
  details: ToolDetails,
  args: Record<string, unknown>,
  cwd: string,
  oldText: string | undefined,
) {
  const out: ToolCallContent[] = [];
  if (details.kind === 'edit') {
    const path = absolutePath(details.path, cwd);
    for (const hunk of details.hunks) {
      const before = hunk.lines.filter((l) => l[0] === ' ' || l[0] === '-').map((l) => l.slice(1));
      const after = hunk.lines.filter((l) => l[0] === ' ' || l[0] === '+').map((l) => l.slice(1));
      out.push({ type: 'diff', path, oldText: before.join('\n'), newText: after.join('\n') });
    }
  } else if (details.kind === 'write') {
    const content = stringArg(args, 'content') ?? '';
    const path = absolutePath(details.path, cwd);
    // A replaced file whose old text was not kept (too large, unreadable) shows the new text.
    const before = details.created ? { oldText: null } : oldText !== undefined ? { oldText } : {};
    out.push({ type: 'diff', path, ...before, newText: content });
  }
  return out;
}

/** `name preview`; without a preview (a replay), the path or command the call names. */
function titleOf(name: string, preview: string, args: Record<string, unknown>): string {
  const what = preview || stringArg(args, 'path') || stringArg(args, 'command') || '';
  return what ? `${name} ${what.split('\n')[0]!.slice(0, 200)}` : name;
}

interface Call {
  name: string;
  args: Record<string, unknown>;
  output: string;
  timer?: NodeJS.Timeout;
  started: boolean;
  /** The editor's terminal the command runs in (`--client-terminal`): shown instead of text. */
  terminalId?: string;
}

/**
 * Tracks the tool calls of one session and emits their updates.
 * Contract: progress is coalesced (at most one update per call per PROGRESS_INTERVAL_MS, the
 * output's tail); a call's result update always comes after its last progress update.
 */
export class ToolCalls {
  private readonly calls = new Map<string, Call>();

  constructor(
    private readonly cwd: string,
    private readonly emit: (update: SessionUpdate) => void,
    /** Old texts of files `write` replaces (none in a replay). */
    private readonly oldTexts?: OldTexts,
  ) {}

  call(event: EventOf<'tool_call'>): void {
    this.calls.set(event.id, { name: event.name, args: event.args, output: '', started: false });
    // The event comes before the tool runs: the file still holds its old text.
    const path = stringArg(event.args, 'path');
    if (event.name === 'write' && path && this.oldTexts?.readDiskOnCall) {
      this.oldTexts.fromDisk(absolutePath(path, this.cwd));
    }
    this.emit({
      sessionUpdate: 'tool_call',
      toolCallId: event.id,
      title: titleOf(event.name, event.preview, event.args),
      kind: toolKind(event.name),
      status: 'pending',
      locations: locationsOf(event.args, this.cwd),
      rawInput: event.args,
      ...(event.extension ? { _meta: { zot: { extension: event.extension } } } : {}),
    });
  }

  /** The call was allowed and runs (after a permission answer, or its first output). */
  running(id: string): void {
    const call = this.calls.get(id);
    if (!call || call.started) return;
    call.started = true;
    this.emit({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' });
  }

  /** The call runs in the editor's terminal: the editor shows its output live. */
  terminal(id: string, terminalId: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    call.terminalId = terminalId;
    call.started = true;
    this.emit({
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId }],
    });
  }

  progress(event: EventOf<'tool_progress'>): void {
    const call = this.calls.get(event.id);
    if (!call) return;
    this.running(event.id);
    call.output = (call.output + event.text + '\n').slice(-PROGRESS_TAIL_CHARS);
    call.timer ??= setTimeout(() => this.flush(event.id), PROGRESS_INTERVAL_MS);
  }

  private flush(id: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    call.timer = undefined;
    this.emit({
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      content: [{ type: 'content', content: { type: 'text', text: fenced(call.output) } }],
    });
  }

  result(event: EventOf<'tool_result'>): void {
    const call = this.calls.get(event.id);
    if (call?.timer) clearTimeout(call.timer);
    this.calls.delete(event.id);
    const content: ToolCallContent[] = event.content.map((block) => ({
      type: 'content',
      content:
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : { type: 'image', mimeType: block.mime_type, data: block.data },
    }));
    const written =
      event.details?.kind === 'write' ? absolutePath(event.details.path, this.cwd) : undefined;
    const oldText = written === undefined ? undefined : this.oldTexts?.take(written);
    if (!event.is_error && event.details) {
      content.unshift(...diffContent(event.details, call?.args ?? {}, this.cwd, oldText));
    }
    const asked = call && call.name === 'write' ? stringArg(call.args, 'path') : undefined;
    if (asked) this.oldTexts?.drop(absolutePath(asked, this.cwd));
    // The terminal holds the output (the editor keeps showing it after release); the text
    // result, exit status included, stays in rawOutput.
    if (call?.terminalId)
      content.splice(0, content.length, { type: 'terminal', terminalId: call.terminalId });
    this.emit({
      sessionUpdate: 'tool_call_update',
      toolCallId: event.id,
      status: event.is_error ? 'failed' : 'completed',
      content,
      rawOutput: {
        content: event.content.map((block) =>
          block.type === 'text' ? block : { type: 'image', mime_type: block.mime_type },
        ),
        ...(event.details ? { details: event.details } : {}),
      },
    });
  }

  /** Stops pending progress timers (the session ended). */
  close(): void {
    for (const call of this.calls.values()) if (call.timer) clearTimeout(call.timer);
    this.calls.clear();
  }
}

/** Output as a fenced block, with a fence longer than any backtick run inside it. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text.replace(/\n$/, '')}\n${fence}`;
}
