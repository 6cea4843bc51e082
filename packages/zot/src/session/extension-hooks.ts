// Wires the extension host into the agent's hook points and lifecycle events, and keeps the
// audit trail of every block and rewrite (event, session file, extension log).
import { textOf } from '../agent/content-text.js';
import type { AgentHooks, AssistantTextPart } from '../agent/hooks.js';
import type { ExtensionHost } from '../extensions/host.js';
import type { InterceptRecord } from '../extensions/intercept.js';
import { textDigest } from '../util/digest.js';
import type { SessionEvent } from '../contract/events.js';

export interface AuditSink {
  emit(event: SessionEvent): void;
  record(entry: { type: string; [key: string]: unknown }): void;
}

/**
 * The audit trail. The session file (0600) keeps the full before and after values: it is the
 * one place a redacted original survives. The `intercept` event keeps them too, except for
 * assistant text, whose original is given by length and hash (the extension's log does the
 * same): a redacted secret must not reach the screen or the log through the audit.
 * `part` (session file only) says which output was screened: text, thinking or a summary.
 */
function audit(records: InterceptRecord[], sink: AuditSink, part?: AssistantTextPart): void {
  for (const record of records) {
    sink.record({
      type: 'intercept',
      time: new Date().toISOString(),
      ...record,
      ...(part ? { part } : {}),
    });
    if (
      (record.event === 'assistant_message' || record.event === 'user_prompt') &&
      typeof record.before === 'string'
    ) {
      const { before, ...rest } = record;
      const { chars, sha256 } = textDigest(before);
      sink.emit({ type: 'intercept', ...rest, before_chars: chars, before_sha256: sha256 });
    } else {
      sink.emit({ type: 'intercept', ...record });
    }
  }
}

/** The agent's hooks wired to the host, and the forwarding of lifecycle events to observers. */
export interface ExtensionWiring {
  hooks: AgentHooks;
  /** Subscribed to the session's events: sends the lifecycle to subscribed extensions. */
  forward(event: SessionEvent): void;
}

/**
 * Wires the host into a session. The interception hooks run before confirmation (design D14).
 * Contract: observers hear of a turn (`turn_start`, and so its `turn_end`) only once the
 * `turn_start` interceptors let it through; a blocked turn never happened for them.
 */
export function wireExtensions(host: ExtensionHost, sink: AuditSink): ExtensionWiring {
  let announced = false;
  const hooks = extensionHooks(host, sink, (step) => {
    announced = true;
    host.emitEvent('turn_start', { step });
  });
  const forward = (event: SessionEvent) => {
    if (event.type === 'turn_start') return; // announced by the hook, once allowed
    if (event.type === 'turn_end') {
      if (!announced) return;
      announced = false;
    }
    forwardLifecycle(host, event);
  };
  return { hooks, forward };
}

/** The interception hooks; `allowed` hears of each turn the interceptors let through. */
function extensionHooks(
  host: ExtensionHost,
  sink: AuditSink,
  allowed: (step: number) => void,
): AgentHooks {
  return {
    async beforeModelCall({ step }) {
      const result = await host.intercept('turn_start', { step });
      audit(result.records, sink);
      if (result.blocked) {
        return { block: true, reason: `${result.blocked.reason} (${result.blocked.extension})` };
      }
      allowed(step);
      const added = result.value.contexts ?? [];
      return added.length > 0
        ? { context: added.map(({ extension, text }) => ({ source: extension, text })) }
        : undefined;
    },
    async afterToolCall({ id, name, args }, { content, isError }) {
      if (!host.intercepting('tool_result')) return undefined;
      const result = await host.intercept('tool_result', {
        tool: name,
        args,
        tool_call_id: id,
        content,
        is_error: isError,
      });
      audit(result.records, sink);
      if (result.blocked)
        return { block: true, reason: `${result.blocked.reason} (${result.blocked.extension})` };
      return result.value.content !== content ? { content: result.value.content } : undefined;
    },
    async beforePrompt(text, source) {
      if (!host.intercepting('user_prompt')) return undefined;
      const result = await host.intercept('user_prompt', { text, source });
      audit(result.records, sink);
      if (result.blocked)
        return { block: true, reason: `${result.blocked.reason} (${result.blocked.extension})` };
      return result.value.text !== text ? { text: result.value.text } : undefined;
    },
    async beforeToolCall({ id, name, args }) {
      const result = await host.intercept('tool_call', {
        tool_id: id,
        tool_name: name,
        tool_args: args,
      });
      audit(result.records, sink);
      if (result.blocked) return { block: true, reason: result.blocked.reason };
      return result.value.tool_args !== args ? { args: result.value.tool_args } : undefined;
    },
    // Thinking and summaries are offered as separate calls with the same frame (`text`), so a
    // redaction rule applies to them as to the visible text without a new wire field.
    async beforeAssistantText(text, part) {
      const result = await host.intercept('assistant_message', { text });
      audit(result.records, sink, part);
      if (result.blocked) return { block: true, reason: result.blocked.reason };
      if (result.value.text === text) return undefined;
      return { text: result.value.text, ...(result.value.transcript ? { transcript: true } : {}) };
    },
    holdTextStream: () => host.intercepting('assistant_message'),
    // Extensions held back so that they do not compete with zot's start start soon.
    modelRequestSent: () => host.startHeldAfterRequest(),
  };
}

/** Forwards the session's lifecycle to subscribed extensions as `event` frames. */
function forwardLifecycle(host: ExtensionHost, event: SessionEvent): void {
  switch (event.type) {
    case 'turn_end':
      return host.emitEvent('turn_end', { stop: event.stop });
    case 'tool_call':
      return host.emitEvent('tool_call', {
        tool_id: event.id,
        tool_name: event.name,
        tool_args: event.args,
      });
    case 'assistant_message': {
      const text = textOf(event.content);
      if (text !== '') host.emitEvent('assistant_message', { text });
      return;
    }
  }
}
