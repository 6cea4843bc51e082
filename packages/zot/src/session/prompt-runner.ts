// Running prompts and compactions: each is one operation of the session's queue, with its own
// abort controller; a prompt's agent run is what steering messages join, and a prompt that
// fills the context window is followed by an automatic compaction.
import type { AgentEvent } from '../agent/events.js';
import type { AgentHooks, PendingToolCall, PromptOrigin } from '../agent/hooks.js';
import { runAgent } from '../agent/loop.js';
import { runToolCall } from '../agent/tool-call.js';
import type { ErrorKind } from '../contract/errors.js';
import type { SessionEvent } from '../contract/events.js';
import type { Message, ModelInfo, TokenUsage, UserContent } from '../providers/types.js';
import { AUTO_COMPACT_RATIO, compactTranscript } from './compact.js';
import type { ConfirmGate } from './confirm.js';
import type { ModelAccess } from './model-access.js';
import type { RequestId } from '../contract/front-end.js';
import { ending, type OperationQueue } from './operation-queue.js';
import type { PermissionGate } from './permission-gate.js';
import type { PromptQueue } from './prompt-queue.js';
import type { SessionExtensions } from './session-extensions.js';
import { contextUsed, type PromptOutcome, type SessionOptions } from './session-options.js';
import type { SessionRecord } from './session-record.js';
import { summaryMessage } from './store.js';
import type { Checkpointer } from './checkpoints/checkpointer.js';

export interface CompactOutcome {
  summary?: string;
  error?: string;
  /** With `error`: what kind of failure it was (absent when the compaction was aborted). */
  errorKind?: ErrorKind;
}

/** The parts of a session that a run reads and changes. */
export interface RunnerSession {
  readonly options: SessionOptions;
  readonly cwd: string;
  /** The transcript, changed in place. */
  readonly messages: Message[];
  readonly queued: PromptQueue;
  readonly ops: OperationQueue;
  readonly access: ModelAccess;
  readonly recorder: SessionRecord;
  readonly ext: SessionExtensions;
  readonly permissions: PermissionGate;
  gate(): ConfirmGate | undefined;
  checkpoints(): Checkpointer | undefined;
  emit(event: SessionEvent): void;
}

/** The text of a prompt, for naming its turn. */
const promptText = (content: UserContent[]) =>
  content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');

/** How a shell command of the user's ended: its output (as the model would read it) or why not. */
export interface ShellOutcome {
  output?: string;
  isError?: boolean;
  error?: string;
  errorKind?: ErrorKind;
}

/** What the model reads of a command the user ran with `!`: the command, then its output. */
export function shellContextText(command: string, output: string, isError: boolean): string {
  const fence = output.includes('```') ? '~~~~' : '```';
  return (
    `I ran this command in the shell${isError ? ' (it failed)' : ''}:\n\n$ ${command}\n\n` +
    `Its output:\n\n${fence}\n${output}\n${fence}`
  );
}

export class PromptRunner {
  private controller: AbortController | undefined;
  private closed = false;
  /** The agent run of the prompt in progress, which steering messages join. */
  running: Promise<PromptOutcome> | undefined;

  constructor(private readonly s: RunnerSession) {}

  /**
   * Steering, once the user_prompt interceptors let it through: it joins the running prompt,
   * or follows as a prompt of its own when that ended meanwhile. Contract: as `prompt`.
   */
  async steer(content: UserContent[], requestId?: RequestId): Promise<PromptOutcome> {
    const screened = await this.screenPrompt(content, 'steer');
    if (!Array.isArray(screened)) return screened;
    const running = this.running;
    if (!running) return this.followUp(screened, requestId);
    this.s.queued.steer({ role: 'user', content: screened, time: new Date().toISOString() });
    return running;
  }

  /**
   * Offers a prompt to the beforePrompt hook (the user_prompt interceptors): its content as
   * allowed or rewritten, or the outcome of a refusal, which the user is told as an error.
   * Contract: never rejects; a throwing hook counts as "allow".
   */
  private async screenPrompt(
    content: UserContent[],
    origin: PromptOrigin,
  ): Promise<UserContent[] | PromptOutcome> {
    const hooks = this.s.ext.hooks;
    if (!hooks.beforePrompt) return content;
    const text = content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    let decision;
    try {
      decision = await hooks.beforePrompt(text, origin);
    } catch {
      decision = undefined;
    }
    if (decision?.block) {
      const error = `prompt blocked: ${decision.reason || 'refused by an extension'}`;
      this.s.emit({ type: 'error', message: error, kind: 'blocked' });
      return { stop: 'error', error, errorKind: 'blocked', finalText: '' };
    }
    if (decision?.text === undefined) return content;
    const images = content.filter((block) => block.type !== 'text');
    return [...(decision.text ? [{ type: 'text' as const, text: decision.text }] : []), ...images];
  }

  /**
   * Runs `content` as a prompt after whatever runs now; its `done` carries `requestId`.
   * `origin` is who sent it, for the user_prompt interceptors; undefined: already screened.
   * Contract: as `prompt`.
   */
  followUp(
    original: UserContent[],
    requestId?: RequestId,
    origin?: 'user' | 'extension',
  ): Promise<PromptOutcome> {
    let content = original;
    // Only a prompt that really has to wait is shown in the queue; one that does not is the
    // running one from now on, so an abort sent right after it finds it.
    const entry = this.s.ops.pending > 0 ? this.s.queued.addFollowUp(content) : undefined;
    const controller = new AbortController();
    if (!entry) this.controller = controller;
    return this.s.ops.enqueue(async (): Promise<PromptOutcome> => {
      if (entry?.dropped) {
        return { stop: 'aborted', error: 'cancelled before it started', finalText: '' };
      }
      if (entry) this.s.queued.start(entry);
      this.controller = controller;
      try {
        if (this.closed) return { stop: 'aborted', error: 'the session was closed', finalText: '' };
        await this.s.ext.starting;
        if (this.closed) return { stop: 'aborted', error: 'the session was closed', finalText: '' };
        // Before the prompt joins the transcript: without a key it cannot be answered.
        const missing = this.s.access.missingKey();
        if (missing !== undefined) {
          this.s.emit({ type: 'error', message: missing, kind: 'auth' });
          return { stop: 'error', error: missing, errorKind: 'auth', finalText: '' };
        }
        if (origin !== undefined) {
          const screened = await this.screenPrompt(content, entry ? 'queue' : origin);
          if (!Array.isArray(screened)) return screened;
          content = screened;
        }
        const message: Message = { role: 'user', content, time: new Date().toISOString() };
        this.s.ext.host?.notes.clearAll();
        this.s.messages.push(message);
        this.s.recorder.append({ type: 'message', message });
        this.s.emit({ type: 'user_message', content, time: message.time });
        const checkpoints = this.s.checkpoints();
        checkpoints?.startTurn(promptText(content), this.s.messages.length - 1);
        const run = runAgent(
          this.s.messages,
          this.agentSetup(controller.signal),
          controller.signal,
        );
        this.running = run;
        const result = await run;
        this.running = undefined;
        await checkpoints?.endTurn();
        // Steering that came too late for this run (it ended, failed or was aborted) follows it.
        for (const late of this.s.queued.takeSteering()) void this.followUp(late.content);
        // A failed automatic compaction is reported on its own; the prompt itself succeeded.
        if (result.stop === 'end_turn' && this.needsCompaction(result.lastUsage)) {
          await this.compactNow(controller.signal);
        }
        return result;
      } finally {
        this.running = undefined;
        this.controller = undefined;
      }
    }, ending(requestId));
  }

  /**
   * Runs `command` as the user's own bash call (`!cmd` in the TUI) after whatever runs now:
   * through the bash tool's machinery (interception, permission rules, the sandbox, output
   * limits), shown as a tool row (its tool_call and tool_result events). With `addToContext`
   * the command and its output join the transcript as a user message, which the model reads
   * with the next prompt. Contract: never rejects; ends with `done`.
   */
  shell(command: string, addToContext: boolean, requestId?: RequestId): Promise<ShellOutcome> {
    const controller = new AbortController();
    if (this.s.ops.pending === 0) this.controller = controller;
    return this.s.ops.enqueue(async (): Promise<ShellOutcome> => {
      this.controller = controller;
      try {
        if (this.closed) return { error: 'the session was closed' };
        await this.s.ext.starting;
        const call = {
          type: 'tool_call' as const,
          id: `shell_${Date.now().toString(36)}_${(this.shells++).toString(36)}`,
          name: 'bash',
          args: { command },
        };
        // The rules and the extensions' interception, as for the model's calls; not a turn,
        // so no checkpoint is taken for it.
        const { signal } = controller;
        const setup = this.agentSetup(signal, this.gatedHooks(signal));
        const result = await runToolCall(call, setup, signal);
        const output = result.content
          .map((block) => (block.type === 'text' ? block.text : `[image ${block.mime_type}]`))
          .join('\n');
        if (addToContext) {
          const text = shellContextText(command, output, result.is_error);
          const message: Message = {
            role: 'user',
            content: [{ type: 'text', text }],
            time: new Date().toISOString(),
          };
          this.s.messages.push(message);
          this.s.recorder.append({ type: 'message', message });
        }
        return { output, isError: result.is_error };
      } finally {
        this.controller = undefined;
      }
    }, ending(requestId));
  }

  private shells = 0;

  /**
   * The hooks of one run: the extensions' and, when anything can refuse a call, the gate; with
   * checkpoints on, the first tool call of the turn records the tree before anything runs.
   */
  private runHooks(signal: AbortSignal): AgentHooks {
    const hooks = this.gatedHooks(signal);
    const checkpoints = this.s.checkpoints();
    if (!checkpoints) return hooks;
    const intercept = hooks.beforeToolCall?.bind(hooks);
    const streaming = hooks.toolCallStreaming?.bind(hooks);
    return {
      ...hooks,
      // The checkpoint starts as the model begins to stream the turn's first tool call, so
      // that it is (mostly) written by the time the call's arguments are complete; the call
      // itself still waits for it below. Nothing of the reply has run yet.
      toolCallStreaming: () => {
        void checkpoints.beforeToolCall();
        streaming?.();
      },
      beforeToolCall: async (call) => {
        await checkpoints.beforeToolCall();
        return intercept?.(call);
      },
    };
  }

  private gatedHooks(signal: AbortSignal): AgentHooks {
    const gate = this.s.gate();
    const askByDefault = this.s.options.askByDefault === true;
    if (!gate && !this.s.options.rules && !askByDefault) return this.s.ext.hooks;
    const confirmToolCall = (call: PendingToolCall) =>
      this.s.permissions.check(call, {
        gate,
        defaultAllows: gate ? gate.isYolo : !askByDefault,
        nobody: 'print or JSON mode',
        signal,
      });
    return { ...this.s.ext.hooks, confirmToolCall };
  }

  private agentSetup(signal: AbortSignal, hooks: AgentHooks = this.runHooks(signal)) {
    return {
      cwd: this.s.cwd,
      maxSteps: this.s.options.maxSteps,
      hooks,
      activeTools: () => this.s.options.tools.active(),
      takeSteering: () => this.s.queued.takeSteering(),
      findTool: (name: string) => this.s.options.tools.find(name),
      settings: () => this.s.access.settings(),
      stream: this.s.options.stream,
      usage: (model: ModelInfo, usage: TokenUsage) => this.s.recorder.addCall(model, usage),
      emit: (event: AgentEvent) => this.s.emit(event),
      append: (message: Message) => this.s.recorder.append({ type: 'message', message }),
    };
  }

  private needsCompaction(usage: TokenUsage | undefined): boolean {
    if (!usage) return false;
    return contextUsed(usage) >= AUTO_COMPACT_RATIO * this.s.access.model.contextWindow;
  }

  /**
   * Summarises the transcript; queued like a prompt, and its `done` carries `requestId`.
   * Contract: never rejects; ends with `done`.
   */
  compact(requestId?: RequestId): Promise<CompactOutcome> {
    const controller = new AbortController();
    if (this.s.ops.pending === 0) this.controller = controller;
    return this.s.ops.enqueue(async () => {
      this.controller = controller;
      try {
        return await this.compactNow(controller.signal);
      } finally {
        this.controller = undefined;
      }
    }, ending(requestId));
  }

  private async compactNow(signal: AbortSignal): Promise<CompactOutcome> {
    const result = await compactTranscript(
      this.s.messages,
      () => {
        const missing = this.s.access.missingKey();
        return missing === undefined
          ? { settings: this.s.access.settings() }
          : { error: missing, kind: 'auth' as const };
      },
      this.s.options.stream,
      this.s.ext.hooks,
      signal,
    );
    if ('error' in result) {
      // An aborted compaction is no failure: its `done` says enough.
      if (result.kind === undefined) return { error: result.error };
      this.s.emit({ type: 'error', message: result.error, kind: result.kind });
      return { error: result.error, errorKind: result.kind };
    }
    const { summary, kept } = result;
    const time = new Date().toISOString();
    const last = this.s.recorder.lastCall;
    const before = last ? contextUsed(last) : estimateTokens(this.s.messages);
    this.s.messages.splice(0, this.s.messages.length, summaryMessage(summary, time), ...kept);
    const after = estimateTokens(this.s.messages);
    // The context meter reads the last call's context: until the next call, the estimate of
    // what the summary left (it read the full context before, and a full meter after a
    // compaction says the opposite of what happened).
    this.s.recorder.lastCall = { input: after, output: 0, cache_read: 0, cache_write: 0 };
    this.s.checkpoints()?.conversationChanged();
    this.s.recorder.append({ type: 'compaction', time, summary, kept: kept.length });
    this.s.emit({ type: 'compact_done', summary, tokens_before: before, tokens_after: after });
    return { summary };
  }

  /** Aborts the running prompt or compaction; queued ones still run. */
  abort(): void {
    this.controller?.abort();
  }

  /** Aborts the running operation; every queued one ends as soon as it starts. */
  close(): void {
    this.closed = true;
    this.abort();
  }
}

/** About four characters a token: the size of `messages` as a model would read them. */
function estimateTokens(messages: readonly Message[]): number {
  let characters = 0;
  for (const message of messages) characters += JSON.stringify(message.content).length;
  return Math.ceil(characters / 4);
}
