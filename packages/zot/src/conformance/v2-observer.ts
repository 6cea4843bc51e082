// What a version-2 extension sends on its own while the kit exercises it: tool_progress (routed
// and rate-limited by the host's own relay), ui_request (answered as a front end would) and
// unregister_tool. Each is judged as the host would act on it; the checks are added at the end.
import type { FrameFromExtension, ToolProgressFrame, UiRequestFrame } from '@zot/protocol';
import { ProgressRelay } from '../extensions/progress-relay.js';
import type { Line } from './child.js';
import type { Check, Checks } from './report.js';

/** How the kit answers questions: with a value (as a person would), or `unavailable`. */
export type UiAnswerMode = 'value' | 'unavailable';

/** The value the kit picks for a question of each kind. */
export function uiValue(frame: UiRequestFrame): boolean | string | undefined {
  if (frame.kind === 'confirm') return true;
  if (frame.kind === 'select') return frame.options?.[0];
  return 'zot ext test';
}

/** A request the kit sent: how the report names it (`tool clock_now`), and the frame. */
export interface InFlight {
  what: string;
  frame: { type: string } & Record<string, unknown>;
}

/** One question the extension asked, and the request it asked it in (when one was in flight). */
export interface Asked {
  frame: UiRequestFrame;
  line: string;
  during: InFlight | undefined;
  /** The ui_response the kit sent. */
  answer: string;
}

/** How the report names a request in a message. */
export function describeRequest(frame: { type: string } & Record<string, unknown>): string {
  if (frame.type === 'tool_call') return `tool ${String(frame.name)}`;
  if (frame.type === 'command_invoked') return `/${String(frame.name)}`;
  return `intercept ${String(frame.event)}`;
}

/** A request as a check's target: the tool's name, or the command's with its slash. */
export function requestTarget(frame: { type: string } & Record<string, unknown>): string {
  if (frame.type === 'tool_call') return String(frame.name);
  if (frame.type === 'command_invoked') return `/${String(frame.name)}`;
  return String(frame.event);
}

/** Most problems kept per frame type (the rest are counted). */
const MAX_KEPT = 20;
/** Most questions remembered. */
const MAX_QUESTIONS = 100;

export class V2Observer {
  /** The requests in flight, by id. */
  private readonly inFlight = new Map<string, InFlight>();
  private readonly relay: ProgressRelay;
  private readonly unwatch = new Map<string, () => void>();
  /** Progress lines taken, per call described. */
  private readonly progressFor = new Map<string, number>();
  private readonly progressProblems: Check[] = [];
  private overRate = 0;
  /** Ids the kit cancelled, and the lines for them that came after the extension had read it. */
  private readonly cancelled = new Map<string, { readAt?: number; late: number; line?: string }>();
  readonly questions: Asked[] = [];
  private readonly uiProblems: Check[] = [];
  readonly unregistered: Check[] = [];
  mode: UiAnswerMode = 'value';
  private readonly repeats = new Map<Check, number>();

  constructor(
    private readonly send: (frame: { type: string } & Record<string, unknown>) => string,
    /** Removes a tool the extension registered; false when it registered none of that name. */
    private readonly unregister: (name: string) => boolean,
  ) {
    this.relay = new ProgressRelay(
      () => undefined, // strays are judged below, with the frame in hand
      (message) => {
        const dropped = /dropped (\d+) tool_progress lines over the rate limit/.exec(message);
        if (dropped) this.overRate += Number(dropped[1]);
      },
    );
  }

  /** A request was sent. */
  sent(id: string, frame: InFlight['frame']): void {
    const what = describeRequest(frame);
    this.inFlight.set(id, { what, frame });
    if (frame.type !== 'tool_call') return;
    this.unwatch.set(
      id,
      this.relay.watch(id, () => this.progressFor.set(what, (this.progressFor.get(what) ?? 0) + 1)),
    );
  }

  /** Its answer came, or the kit gave up on it. */
  settled(id: string): void {
    this.inFlight.delete(id);
    this.unwatch.get(id)?.();
    this.unwatch.delete(id);
  }

  /** The kit sent `cancel` for `id`. */
  cancelling(id: string): void {
    this.cancelled.set(id, { late: 0 });
    this.settled(id);
  }

  /** The extension has answered a request sent after the cancel of `id`: it has read it. */
  cancelRead(id: string): void {
    const entry = this.cancelled.get(id);
    if (entry) entry.readAt = Date.now();
  }

  /** Progress for `id` that came after the extension read its cancel: count, and an example. */
  lateAfterCancel(id: string): { late: number; line?: string } {
    return this.cancelled.get(id) ?? { late: 0 };
  }

  /** A frame of a version-2 type that is malformed (the decoder's error). */
  malformed(type: string, line: string, error: string): void {
    const check = (name: Check['check']): Check => ({
      check: name,
      status: 'fail',
      message: `malformed: ${error} (zot drops it)`,
      frame: line,
    });
    if (type === 'tool_progress') this.keep(this.progressProblems, check('tool_progress'));
    else if (type === 'ui_request') this.keep(this.uiProblems, check('ui_request'));
    else if (type === 'unregister_tool') this.keep(this.unregistered, check('unregister_tool'));
  }

  /** Keeps `check` once: the same problem again only counts (shown as "N times"). */
  private keep(into: Check[], check: Check): void {
    const same = into.find(
      (kept) =>
        kept.check === check.check &&
        kept.target === check.target &&
        kept.message === check.message,
    );
    if (same) this.repeats.set(same, (this.repeats.get(same) ?? 1) + 1);
    else if (into.length < MAX_KEPT) into.push(check);
  }

  private withRepeats(check: Check): Check {
    const times = this.repeats.get(check);
    return times ? { ...check, message: `${check.message} (${times} times)` } : check;
  }

  /** Every frame after hello that is not a registration or a reply. */
  onFrame(line: Line, frame: FrameFromExtension): void {
    if (frame.type === 'tool_progress') this.progress(line, frame);
    else if (frame.type === 'ui_request') this.question(line, frame);
    else if (frame.type === 'unregister_tool') {
      const known = this.unregister(frame.name);
      this.keep(this.unregistered, {
        check: 'unregister_tool',
        target: frame.name,
        status: known ? 'pass' : 'fail',
        message: known
          ? 'removed a tool it registered'
          : 'names a tool this extension never registered (zot ignores it and logs it)',
        ...(known ? {} : { frame: line.text }),
      });
    }
  }

  private progress(line: Line, frame: ToolProgressFrame): void {
    const cancelled = this.cancelled.get(frame.id);
    if (cancelled) {
      if (cancelled.readAt !== undefined && line.at >= cancelled.readAt) {
        cancelled.late += 1;
        cancelled.line ??= line.text;
      }
      return;
    }
    const request = this.inFlight.get(frame.id);
    if (request === undefined || !this.unwatch.has(frame.id)) {
      const why =
        request === undefined
          ? 'which is no call in flight (answered, cancelled or never sent)'
          : `which is ${request.what}, not a tool call`;
      this.keep(this.progressProblems, {
        check: 'tool_progress',
        status: 'fail',
        message: `for id ${JSON.stringify(frame.id)}, ${why}: zot drops it`,
        frame: line.text,
      });
      return;
    }
    this.relay.deliver(frame);
  }

  private question(line: Line, frame: UiRequestFrame): void {
    const during = this.inFlight.size === 1 ? [...this.inFlight.values()][0] : undefined;
    const problem =
      frame.kind === 'select' && (frame.options ?? []).length === 0
        ? 'a select without options: nobody can answer it'
        : frame.title.trim() === ''
          ? 'an empty title: the user cannot tell what is asked'
          : undefined;
    let answer: Record<string, unknown>;
    if (problem !== undefined) {
      this.keep(this.uiProblems, {
        check: 'ui_request',
        target: frame.kind,
        status: 'fail',
        message: `${during ? `${during.what} asked ` : ''}${problem}`,
        frame: line.text,
      });
      answer = { cancelled: true };
    } else if (this.mode === 'unavailable') answer = { unavailable: true };
    else answer = { value: uiValue(frame) };
    const sent = this.send({ type: 'ui_response', id: frame.id, ...answer });
    if (this.questions.length < MAX_QUESTIONS)
      this.questions.push({ frame, line: line.text, during, answer: sent });
  }

  /** The checks of what the extension sent on its own. */
  report(checks: Checks): void {
    for (const check of this.progressProblems) checks.add(this.withRepeats(check));
    const total = [...this.progressFor.values()].reduce((sum, n) => sum + n, 0);
    if (this.overRate > 0)
      checks.add({
        check: 'tool_progress',
        status: 'warn',
        message: `${this.overRate} line(s) over zot's rate limit (a burst of 100 a call, then 50 a second) would be dropped`,
      });
    else if (total > 0 && this.progressProblems.length === 0) {
      const calls = [...this.progressFor.entries()].map(([what, n]) => `${what}: ${n}`);
      checks.add({
        check: 'tool_progress',
        status: 'pass',
        message: `${total} line(s) for calls in flight (${calls.join(', ')})`,
      });
    }
    for (const check of this.uiProblems) checks.add(this.withRepeats(check));
    for (const check of this.unregistered) checks.add(this.withRepeats(check));
  }
}
