// Extension tools as ordinary Tool objects: a tool_call frame out, a tool_result frame back.
import type { ContentBlock, ImageBlock as FrameImage, ToolResultFrame } from '@zot/protocol';
import type { Tool, ToolContent, ToolOutput } from '../agent/tool.js';
import type { RunningExtension } from './extension.js';
import { RequestError } from './peer.js';
import { checkResultDetails } from './result-details.js';
import type { ToolRegistration } from './registrations.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function validBase64(data: string): boolean {
  const compact = data.replace(/\s+/g, '');
  return compact.length > 0 && compact.length % 4 === 0 && BASE64.test(compact);
}

function errorOutput(text: string, attribution: ToolOutput['attribution']): ToolOutput {
  return {
    content: [{ type: 'text', text }],
    isError: true,
    ...(attribution ? { attribution } : {}),
  };
}

/**
 * Content blocks of a frame as tool content, or what is wrong with them ("an image of
 * unsupported type ...", "an image with invalid base64 data").
 */
export function convertContent(blocks: readonly ContentBlock[]): ToolContent[] | string {
  const content: ToolContent[] = [];
  for (const block of blocks) {
    if (block.type === 'text') {
      content.push({ type: 'text', text: block.text ?? '' });
      continue;
    }
    const image = block as FrameImage;
    const mime = image.mime_type ?? '';
    if (!IMAGE_TYPES.has(mime)) return `an image of unsupported type "${mime}"`;
    if (typeof image.data !== 'string' || !validBase64(image.data))
      return 'an image with invalid base64 data';
    content.push({ type: 'image', mime_type: mime, data: image.data.replace(/\s+/g, '') });
  }
  return content;
}

/**
 * Converts a tool_result frame; an invalid image turns the whole result into an error, while
 * details that cannot be shown are left out (the result stands).
 */
export function convertToolResult(
  extension: string,
  tool: string,
  frame: ToolResultFrame,
  /** Where a note about left-out or cut details goes (the extension's log). */
  log?: (line: string) => void,
): ToolOutput {
  const attribution = { extension, tool };
  const content = convertContent(frame.content ?? []);
  if (typeof content === 'string')
    return errorOutput(`extension ${extension} returned ${content} from tool ${tool}`, attribution);
  const checked = frame.details ? checkResultDetails(frame.details) : undefined;
  if (checked?.note) log?.(`tool ${tool}: ${checked.note}`);
  return {
    content,
    isError: frame.is_error === true,
    attribution,
    ...(frame.activate_tools?.length ? { activateTools: frame.activate_tools } : {}),
    ...(checked?.details ? { details: checked.details } : {}),
  };
}

/**
 * Resolves once `extension` has started (or failed to), or `signal` aborts; one held back
 * (spawned after the first model request) is started now.
 */
async function settledOrAborted(
  extension: RunningExtension,
  tool: string,
  signal?: AbortSignal,
): Promise<void> {
  const started = extension.release(`a call of its tool ${tool} needs it`);
  if (!signal) return void (await started);
  if (signal.aborted) return;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([started, aborted]);
  signal.removeEventListener('abort', onAbort!);
}

export interface ToolAdapterContext {
  toolTimeoutMs: number;
  /** Called with a result's activate_tools before the result goes back to the agent. */
  activate(from: RunningExtension, names: string[]): void;
}

/** Contract: execute never throws; every failure is an error result naming the extension and its log. */
export function extensionTool(
  extension: RunningExtension,
  registration: ToolRegistration,
  context: ToolAdapterContext,
): Tool {
  const attribution = { extension: extension.name, tool: registration.name };
  return {
    name: registration.name,
    description:
      registration.description || `${registration.name} (from extension ${extension.name})`,
    parameters: registration.schema,
    // Its preview is the arguments (previewCall's default); the extension goes beside it.
    extension: extension.name,
    async execute(args, toolContext) {
      // Offered from what it registered in an earlier run: the call waits for its start, which
      // its hello and ready deadlines bound.
      if (!extension.latest.settled) {
        await settledOrAborted(extension.latest, registration.name, toolContext.signal);
        if (toolContext.signal?.aborted)
          return errorOutput(`${registration.name}: aborted`, attribution);
      }
      // A tool offered before a restart goes to the process that replaced the crashed one.
      const target = extension.latest;
      if (!target.running) {
        return errorOutput(target.unavailable, attribution);
      }
      if (!target.tools.has(registration.name)) {
        return errorOutput(
          `extension ${extension.name} no longer registers the tool ${registration.name} (it was offered from what the extension registered in an earlier run); see ${extension.logPath}`,
          attribution,
        );
      }
      let unwatch: (() => void) | undefined;
      try {
        const frame = await target.peer.request(
          { type: 'tool_call', name: registration.name, args },
          `tool ${registration.name}`,
          context.toolTimeoutMs,
          toolContext.signal,
          (id) => (unwatch = target.progress.watch(id, (text) => toolContext.onProgress(text))),
        );
        // Details are a version-2 ability: a version-1 extension's result reads as it always has.
        const { details, ...plain } = frame;
        const output = convertToolResult(
          extension.name,
          registration.name,
          target.protocolVersion >= 2 ? frame : plain,
          (line) => target.log.write(line),
        );
        if (details && target.protocolVersion < 2)
          target.log.write(`tool ${registration.name}: details ignored (protocol version 1)`);
        if (output.activateTools) context.activate(target, output.activateTools);
        return output;
      } catch (error) {
        if (!(error instanceof RequestError)) throw error;
        if (error.reason === 'timeout') {
          target.log.write(
            `tool ${registration.name}: no tool_result within ${context.toolTimeoutMs} ms`,
          );
          return errorOutput(
            `extension ${extension.name} did not answer tool call ${registration.name} within ${context.toolTimeoutMs} ms; see ${extension.logPath}`,
            attribution,
          );
        }
        if (error.reason === 'aborted')
          return errorOutput(`${registration.name}: aborted`, attribution);
        return errorOutput(`${error.message}`, attribution);
      } finally {
        unwatch?.();
      }
    },
  };
}
