// From what the host sent and what handlers returned to what goes back on the wire: the host's
// details from hello_ack, reply bodies from handler results, and the replies that refuse a
// request when its handler failed.
import {
  answer,
  type FrameFromExtension,
  type HelloAckFrame,
  type ReplyBody,
  type RequestType,
} from '@zot/protocol';
import type { CommandReturn, HostInfo, ToolReturn } from './extension-types.js';
import type { ToolResult } from './results.js';

export const EMPTY_HOST: HostInfo = {
  protocolVersion: 0,
  zotVersion: '',
  provider: '',
  model: '',
  cwd: '',
  extensionDir: '',
  dataDir: '',
};

export function hostInfo(ack: HelloAckFrame): HostInfo {
  return {
    protocolVersion: ack.protocol_version,
    zotVersion: ack.zot_version ?? '',
    provider: ack.provider ?? '',
    model: ack.model ?? '',
    cwd: ack.cwd ?? '',
    extensionDir: ack.extension_dir ?? '',
    dataDir: ack.data_dir ?? ack.extension_dir ?? '',
  };
}

export function commandBody(result: CommandReturn): ReplyBody<'command_invoked'> {
  if (result === undefined) return { action: 'noop' };
  if (typeof result === 'string') return { action: 'display', display: result };
  switch (result.action) {
    case 'prompt':
      return { action: 'prompt', prompt: result.prompt };
    case 'insert':
      return { action: 'insert', insert: result.insert };
    case 'display':
      return { action: 'display', display: result.display };
    case 'open_panel':
      return { action: 'open_panel', open_panel: result.panel };
    case 'noop':
      return { action: 'noop' };
    case 'error':
      return { action: 'noop', error: result.error };
  }
}

export function toolBody(result: ToolReturn, activate: string[]): ReplyBody<'tool_call'> {
  const value: ToolResult =
    result === undefined
      ? { content: [] }
      : typeof result === 'string'
        ? { content: [{ type: 'text', text: result }] }
        : result;
  const names = [...new Set([...(value.activateTools ?? []), ...activate])];
  return {
    content: [...value.content],
    ...(value.isError ? { is_error: true } : {}),
    ...(names.length > 0 ? { activate_tools: names } : {}),
  };
}

/**
 * The reply that refuses a request: an error result for a tool call, a noop carrying the error
 * for a command, and for an interception an answer with `error` (and, when `blocking`, a block):
 * never an allow, since nothing was decided; zot applies the manifest's `intercept_failure`.
 * Contract: undefined only if even that reply would not pass the host's check.
 */
export function refusal(
  request: { type: RequestType; id: string },
  message: string,
  blocking: boolean,
): FrameFromExtension | undefined {
  const { id } = request;
  let built: ReturnType<typeof answer>;
  switch (request.type) {
    case 'tool_call':
      built = answer(
        { type: 'tool_call', id },
        { content: [{ type: 'text', text: message }], is_error: true },
      );
      break;
    case 'command_invoked':
      built = answer({ type: 'command_invoked', id }, { action: 'noop', error: message });
      break;
    case 'event_intercept':
      built = answer(
        { type: 'event_intercept', id },
        blocking ? { block: true, reason: message, error: message } : { error: message },
      );
      break;
  }
  return built.ok ? built.reply : undefined;
}
