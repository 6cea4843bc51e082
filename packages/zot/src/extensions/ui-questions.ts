// Extensions' questions to the user (ui_request): each goes to the front end's answerer, or is
// answered `unavailable` when no front end can ask anyone (print, JSON). The host keeps the
// deadline, bounds how many questions one extension may have open, and withdraws a question
// whose extension exited or restarted, so a dialog never outlives the process that asked.
// While an extension waits for the user, the deadlines of its calls in flight are paused: the
// user reading a dialog is not the extension being slow.
import { V2_LIMITS, type UiRequestFrame, type UiResponseFrame } from '@zot/protocol';
import {
  answerProblem,
  type AnswerExtension,
  type ExtensionAnswer,
  type ExtensionQuestion,
} from '../contract/extension-questions.js';
import type { RunningExtension } from './extension.js';

/** Questions one extension may have open at once; more are answered unavailable. */
export const MAX_OPEN_QUESTIONS = 4;

/**
 * How long, in all, the user's questions may pause one call's deadline (a question without a
 * `timeout_ms` must not keep a call alive forever); past it the call's clock runs on.
 */
export const QUESTION_PAUSE_CAP_MS = 10 * 60_000;

/** The requests whose deadline waits for the user: a tool call or a command that asks. */
const PAUSABLE = new Set(['tool_call', 'command_invoked']);

interface OpenQuestion {
  extension: RunningExtension;
  frameId: string;
  withdraw: AbortController;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Contract: every ui_request gets exactly one ui_response (a value, `cancelled` or
 * `unavailable`) while its extension runs; a withdrawn question gets none after its
 * `cancelled`; never throws.
 */
export class ExtensionQuestions {
  private answerer: AnswerExtension | undefined;
  private readonly open = new Map<string, OpenQuestion>();
  private nextId = 1;

  constructor(private readonly pauseCapMs = QUESTION_PAUSE_CAP_MS) {}

  /** The front end that answers from now on (the TUI's dialogs, an RPC client). */
  answerWith(answer: AnswerExtension): void {
    this.answerer = answer;
  }

  /** Handles one ui_request frame from `extension`. */
  ask(extension: RunningExtension, frame: UiRequestFrame): void {
    const refuse = (why: string) => {
      extension.log.write(`ui_request ${frame.id} (${frame.kind}): answered unavailable: ${why}`);
      this.reply(extension, { type: 'ui_response', id: frame.id, unavailable: true });
    };
    const answer = this.answerer;
    if (!answer) return refuse('no one can answer in this mode (print and JSON runs ask nobody)');
    const mine = [...this.open.values()].filter((open) => open.extension === extension);
    if (mine.length >= MAX_OPEN_QUESTIONS)
      return refuse(`${MAX_OPEN_QUESTIONS} of its questions are already waiting for the user`);
    if (mine.some((open) => open.frameId === frame.id))
      return refuse(`a question with id "${frame.id}" is already waiting for the user`);
    if (frame.kind === 'select' && !frame.options?.length)
      return refuse('a select question needs at least one option');
    if (frame.kind === 'select' && frame.options!.length > V2_LIMITS.uiOptions)
      return refuse(`a select question may offer at most ${V2_LIMITS.uiOptions} options`);
    const timeout = frame.timeout_ms;
    if (timeout !== undefined && (timeout < 1 || timeout > V2_LIMITS.uiTimeoutMs))
      return refuse(`timeout_ms must be 1 to ${V2_LIMITS.uiTimeoutMs}`);

    const id = `ui-${this.nextId++}`;
    const question: ExtensionQuestion = {
      id,
      extension: extension.name,
      kind: frame.kind,
      title: frame.title,
      ...(frame.kind === 'select' ? { options: [...frame.options!] } : {}),
      ...(frame.kind === 'input' && frame.mask !== undefined ? { mask: frame.mask } : {}),
      ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
    };
    const open: OpenQuestion = {
      extension,
      frameId: frame.id,
      withdraw: new AbortController(),
      timer: undefined,
    };
    this.open.set(id, open);
    extension.log.write(`ui_request ${frame.id} (${frame.kind}): asking the user as ${id}`);
    this.pauseCalls(extension);
    if (timeout !== undefined) {
      open.timer = setTimeout(() => {
        if (!this.close(id)) return;
        extension.log.write(`ui_request ${frame.id}: no answer within ${timeout} ms, cancelled`);
        this.reply(extension, { type: 'ui_response', id: frame.id, cancelled: true });
      }, timeout);
    }
    let pending: Promise<ExtensionAnswer>;
    try {
      pending = answer(question, open.withdraw.signal);
    } catch {
      pending = Promise.resolve({ cancelled: true });
    }
    pending.then(
      (given) => this.settle(id, question, given),
      () => this.settle(id, question, { cancelled: true }),
    );
  }

  /** Withdraws every question of `extension` (it exited, crashed or is being restarted). */
  withdrawFrom(extension: RunningExtension): void {
    for (const [id, open] of this.open) if (open.extension === extension) this.close(id);
  }

  /** Withdraws every question (zot is shutting its extensions down). */
  withdrawAll(): void {
    for (const id of [...this.open.keys()]) this.close(id);
  }

  private settle(id: string, question: ExtensionQuestion, given: ExtensionAnswer): void {
    const open = this.open.get(id);
    if (!open || !this.close(id, false)) return;
    const { extension, frameId } = open;
    // The front ends check answers already; this keeps a wrong one from reaching the extension.
    const problem = answerProblem(question, given);
    if (problem !== undefined) {
      extension.log.write(
        `ui_request ${frameId}: the front end's answer was refused (${problem}); cancelled`,
      );
      return this.reply(extension, { type: 'ui_response', id: frameId, cancelled: true });
    }
    const response: UiResponseFrame =
      'value' in given
        ? { type: 'ui_response', id: frameId, value: given.value }
        : 'cancelled' in given
          ? { type: 'ui_response', id: frameId, cancelled: true }
          : { type: 'ui_response', id: frameId, unavailable: true };
    const how = 'value' in given ? 'answered' : 'cancelled' in given ? 'cancelled' : 'unavailable';
    extension.log.write(`ui_request ${frameId}: ${how}`);
    this.reply(extension, response);
  }

  /** Forgets question `id` and stops its timer; `abort` also tells the front end. */
  private close(id: string, abort = true): boolean {
    const open = this.open.get(id);
    if (!open) return false;
    this.open.delete(id);
    clearTimeout(open.timer);
    if (abort) open.withdraw.abort();
    const asking = [...this.open.values()].some((other) => other.extension === open.extension);
    if (!asking) this.resumeCalls(open.extension);
    return true;
  }

  /** Stops the deadline of each call `extension` has in flight (each within the cap). */
  private pauseCalls(extension: RunningExtension): void {
    for (const frame of extension.peer.pendingFrames())
      if (PAUSABLE.has(frame.type) && extension.peer.pause(frame.id, this.pauseCapMs))
        extension.log.write(`${frame.type} ${frame.id}: deadline paused while the user is asked`);
  }

  /** Runs the paused deadlines of `extension`'s calls on, from where they stopped. */
  private resumeCalls(extension: RunningExtension): void {
    for (const frame of extension.peer.pendingFrames())
      if (extension.peer.resume(frame.id))
        extension.log.write(`${frame.type} ${frame.id}: deadline running again`);
  }

  private reply(extension: RunningExtension, frame: UiResponseFrame): void {
    if (!extension.running) return;
    const problem = extension.send(frame);
    if (problem !== undefined) extension.log.write(`ui_response ${frame.id} not sent: ${problem}`);
  }
}
