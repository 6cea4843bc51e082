// The agent loop: model call, tool calls in order, repeat until the model stops.
import { textOf } from './content-text.js';
import type {
  AssistantContent,
  AssistantMessage,
  Message,
  ModelInfo,
  ReasoningLevel,
  StopReason,
  StreamFn,
  ToolMessage,
  ToolResultBlock,
  TokenUsage,
  UserMessage,
} from '../providers/types.js';
import type { AgentEvent, Usage } from './events.js';
import type { ErrorKind } from '../contract/errors.js';
import type { AgentHooks, TurnContext } from './hooks.js';
import type { OutputLimits } from './output-limit.js';
import { screenAssistant } from './screen.js';
import { runToolCall } from './tool-call.js';
import type { Tool } from './tool.js';
import type { PromptOutcome } from '../contract/front-end.js';

export interface ModelCallSettings {
  model: ModelInfo;
  baseUrl: string;
  apiKey?: string;
  system: string;
  reasoning?: ReasoningLevel;
}

export interface AgentSetup {
  cwd: string;
  maxSteps: number;
  hooks: AgentHooks;
  /** Tools advertised to the model; read again before every model request. */
  activeTools(): Tool[];
  /** Looks up a tool the model called (may find tools not advertised, e.g. just activated). */
  findTool(name: string): Tool | undefined;
  settings(): ModelCallSettings;
  stream(model: ModelInfo): StreamFn;
  /** Turns one call's usage into the usage event (the caller keeps cumulative totals and prices). */
  usage(model: ModelInfo, usage: TokenUsage): { call: Usage; cumulative: Usage };
  emit(event: AgentEvent): void;
  /** Messages the user sent to steer the running prompt; taken at each step boundary. */
  takeSteering?(): UserMessage[];
  /** Every message appended to the transcript, in order, as it is appended. */
  append(message: Message): void;
  /** Size limits for tool results (default: the built-in tools' 2000 lines / 50 KB). */
  outputLimits?: OutputLimits;
}

/** How a run ended; the front ends see it as a prompt's outcome. */
export type AgentRunResult = PromptOutcome;

const now = () => new Date().toISOString();

/**
 * Runs the model/tool loop on `transcript` (which already ends with the user's message).
 * Contract: never throws; emits turn_start/turn_end pairs; appends every message it adds to
 * `transcript` and reports it through `setup.append` in order; an assistant message is appended
 * as the model sent it (rewritten only where a `beforeAssistantText` decision asked for the
 * transcript), with what the user was shown in `shown`, which events carry; leaves it valid
 * for the next request (every tool call has a result, even when aborted).
 */
export async function runAgent(
  transcript: Message[],
  setup: AgentSetup,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  const append = (message: Message) => {
    transcript.push(message);
    setup.append(message);
  };
  // Steering joins the transcript between steps, so the model sees it before it goes on.
  const steered = (): boolean => {
    const messages = setup.takeSteering?.() ?? [];
    for (const message of messages) {
      append(message);
      setup.emit({ type: 'user_message', content: message.content, time: message.time });
    }
    return messages.length > 0;
  };
  // The transcript says where the user cancelled the reply, for whoever reads it back (-c).
  const cancelled = (): AgentRunResult => {
    append({ role: 'assistant', content: [], time: now(), cancelled: true });
    setup.emit({ type: 'assistant_message', content: [], time: now(), cancelled: true });
    setup.emit({ type: 'turn_end', stop: 'aborted' });
    return { stop: 'aborted', finalText, lastUsage };
  };
  let finalText = '';
  let refusal = false;
  let lastUsage: TokenUsage | undefined;
  for (let step = 1; ; step++) {
    if (step > setup.maxSteps) {
      const error = `stopped after ${setup.maxSteps} steps (--max-steps); the model had not finished`;
      setup.emit({ type: 'error', message: error, kind: 'max_steps' });
      return { stop: 'error', error, errorKind: 'max_steps', finalText, lastUsage };
    }
    setup.emit({ type: 'turn_start', step });
    const gate = await safeHook(() => setup.hooks.beforeModelCall?.({ step }));
    if (gate?.block) {
      const error = gate.reason ? `turn blocked: ${gate.reason}` : 'turn blocked by an extension';
      setup.emit({ type: 'error', message: error, kind: 'blocked' });
      setup.emit({ type: 'turn_end', stop: 'error', error, error_kind: 'blocked' });
      return { stop: 'error', error, errorKind: 'blocked', finalText, lastUsage };
    }
    if (signal.aborted) return cancelled();
    for (const context of gate?.context ?? []) append(contextMessage(context));

    const settings = setup.settings();
    const hold = setup.hooks.holdTextStream?.() ?? false;
    setup.emit({ type: 'assistant_start' });
    const outcome = await streamOnce(setup, settings, transcript, hold, signal);
    if (outcome.usage) {
      lastUsage = outcome.usage;
      const { call, cumulative } = setup.usage(settings.model, outcome.usage);
      setup.emit({ type: 'usage', ...call, cumulative });
    }
    const { stop } = outcome;
    // The user gets the screened message (`shown`), the transcript what the model said unless
    // a rewrite asked for the transcript too.
    const message =
      outcome.message.content.length > 0
        ? await screenAssistant(setup.hooks, outcome.message)
        : outcome.message;
    const visible = message.shown ?? message.content;
    const calls = message.content.filter((block) => block.type === 'tool_call');
    if (message.content.length > 0) append(message);
    // A refusal without any text still tells the user that it was one.
    if (visible.length > 0 || message.refusal || message.cancelled) {
      if (message.content.length === 0) append(message);
      setup.emit({
        type: 'assistant_message',
        content: visible,
        time: message.time,
        ...(message.refusal ? { refusal: true as const } : {}),
        ...(message.cancelled ? { cancelled: true as const } : {}),
      });
      const text = textOf(visible);
      if (text !== '') finalText = text;
      refusal = message.refusal === true;
    }
    if (outcome.error !== undefined) {
      if (stop !== 'error') {
        setup.emit({ type: 'turn_end', stop });
        return { stop, finalText, lastUsage };
      }
      const { error } = outcome;
      const kind = outcome.kind ?? 'internal';
      setup.emit({ type: 'error', message: error, kind });
      setup.emit({ type: 'turn_end', stop, error, error_kind: kind });
      return { stop, error, errorKind: kind, finalText, lastUsage };
    }
    if (calls.length === 0) {
      setup.emit({ type: 'turn_end', stop });
      if (stop === 'end_turn' && !signal.aborted && steered()) continue;
      return { stop, finalText, lastUsage, ...(refusal ? { refusal: true } : {}) };
    }

    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      if (call.type !== 'tool_call') continue;
      results.push(await runToolCall(call, setup, signal));
    }
    append({ role: 'tool', content: results, time: now() } satisfies ToolMessage);
    if (signal.aborted) return cancelled();
    setup.emit({ type: 'turn_end', stop: 'tool_use' });
    steered();
  }
}

/**
 * Context an extension added to a turn: a user message marked as such (`context` names the
 * extension), whose text says where it comes from, so the model does not take it for the user's.
 */
function contextMessage(context: TurnContext): UserMessage {
  const text = `<extension-context from="${context.source}">\n${context.text}\n</extension-context>`;
  return { role: 'user', content: [{ type: 'text', text }], time: now(), context: context.source };
}

/** Runs a hook that must not throw; a throw is dropped. */
function safeCall(hook: () => void): void {
  try {
    hook();
  } catch {
    // as safeHook: a hook's failure never ends the run
  }
}

async function safeHook<T>(run: () => Promise<T> | undefined): Promise<T | undefined> {
  try {
    return await run();
  } catch {
    return undefined;
  }
}

/** How one model call ended; `kind` says what failed when the call failed (not aborted). */
interface CallOutcome {
  message: AssistantMessage;
  stop: StopReason;
  usage?: TokenUsage;
  error?: string;
  kind?: ErrorKind;
}

/** One model call. Aborted or failed calls keep the text that streamed, without tool calls. */
async function streamOnce(
  setup: AgentSetup,
  settings: ModelCallSettings,
  transcript: Message[],
  hold: boolean,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const stream = setup.stream(settings.model);
  const tools = setup.activeTools().map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
  const sent = setup.hooks.modelRequestSent;
  const calling = setup.hooks.toolCallStreaming;
  let callSeen = false;
  let streamed = '';
  for await (const event of stream({
    model: settings.model,
    baseUrl: settings.baseUrl,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    system: settings.system,
    messages: transcript,
    tools,
    ...(settings.reasoning !== undefined ? { reasoning: settings.reasoning } : {}),
    signal,
    ...(sent ? { onSent: () => safeCall(() => sent.call(setup.hooks)) } : {}),
  })) {
    // While held (design D15), nothing of the message streams: its text, thinking and tool
    // arguments reach the user only in assistant_message, after screening.
    if (event.type === 'text_delta') {
      streamed += event.delta;
      if (!hold) setup.emit({ type: 'text_delta', delta: event.delta });
    } else if (event.type === 'thinking_delta') {
      if (!hold) setup.emit({ type: 'thinking_delta', delta: event.delta });
    } else if (event.type === 'tool_call_delta') {
      if (!callSeen && calling) safeCall(() => calling.call(setup.hooks));
      callSeen = true;
      const { id, name, delta } = event;
      if (!hold) setup.emit({ type: 'tool_call_delta', id, name, delta });
    } else if (event.type === 'done') {
      return { message: event.message, stop: event.stop, usage: event.usage };
    } else if (event.type === 'error') {
      const kept = (event.partial?.content ?? []).filter((block) => block.type === 'text');
      const content: AssistantContent[] =
        kept.length > 0 ? kept : streamed !== '' ? [{ type: 'text', text: streamed }] : [];
      // A cancelled reply is kept, marked, even with nothing in it: the transcript shows it.
      const message: AssistantMessage = event.aborted
        ? { role: 'assistant', content, time: now(), cancelled: true }
        : { role: 'assistant', content, time: now() };
      return {
        message,
        stop: event.aborted ? 'aborted' : 'error',
        ...(event.usage ? { usage: event.usage } : {}),
        ...(event.aborted ? { error: 'aborted' } : { error: event.message, kind: event.kind }),
      };
    }
  }
  const error = `${settings.model.provider}: the stream ended without a result`;
  return {
    message: { role: 'assistant', content: [], time: now() },
    stop: 'error',
    error,
    kind: 'internal',
  };
}
