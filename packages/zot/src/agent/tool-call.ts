// Running one tool call: bounds, interception, validation, confirmation, execution, result event.
import { ARGS_REFUSED_KEY, jsonLimitProblem, TOOL_ARGS_LIMITS } from '@zot/protocol/bounds';
import type { ToolCallBlock, ToolResultBlock } from '../providers/types.js';
import { errorMessage } from '../util/errors.js';
import { checkArgs } from './check-args.js';
import type { AgentSetup } from './loop.js';
import { defaultOutputLimits, limitOutput } from './output-limit.js';
import { detailCall, previewCall } from './preview.js';
import type { Tool, ToolContent, ToolOutput } from './tool.js';

/** Key the providers use for tool-call arguments that were not valid JSON. */
export const INVALID_JSON_KEY = '__invalid_json__';

function errorOutput(text: string): ToolOutput {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Contract: never throws; always emits tool_call then tool_result for the call. The result's
 * `details` go to the event and the transcript (for front ends), never into `content`.
 */
export async function runToolCall(
  call: ToolCallBlock,
  setup: AgentSetup,
  signal: AbortSignal,
): Promise<ToolResultBlock> {
  const tool = setup.findTool(call.name);
  const preview = previewCall(tool, call.args);
  setup.emit({
    type: 'tool_call',
    id: call.id,
    name: call.name,
    args: call.args,
    preview,
    ...(tool?.extension ? { extension: tool.extension } : {}),
  });
  const output = await screenResult(call, await execute(call, tool, preview, setup, signal), setup);
  const content: ToolContent[] =
    output.content.length > 0 ? output.content : [{ type: 'text', text: '(no output)' }];
  const isError = output.isError === true;
  const details = output.details !== undefined ? { details: output.details } : {};
  setup.emit({
    type: 'tool_result',
    id: call.id,
    is_error: isError,
    content,
    ...details,
    ...(output.attribution ? { extension: output.attribution.extension } : {}),
  });
  const result = { call_id: call.id, name: call.name, is_error: isError, content, ...details };
  // Attribution is persisted with the transcript (who answered); request builders leave it out.
  const attribution = output.attribution ? { attribution: output.attribution } : {};
  return { type: 'tool_result', ...result, ...attribution };
}

/**
 * Offers a result to the tool_result hook before anyone sees it: a block turns it into an error
 * with the reason, replaced content is bounded like any result. A replaced or blocked result
 * loses its details (they describe what the tool returned, which may be what was removed).
 * Contract: never throws; a throwing hook counts as "allow".
 */
async function screenResult(
  call: ToolCallBlock,
  output: ToolOutput,
  setup: AgentSetup,
): Promise<ToolOutput> {
  if (!setup.hooks.afterToolCall) return output;
  let decision;
  try {
    decision = await setup.hooks.afterToolCall(
      { id: call.id, name: call.name, args: call.args },
      { content: output.content, isError: output.isError === true },
    );
  } catch {
    decision = undefined;
  }
  const { details: _details, ...rest } = output;
  if (decision?.block)
    return {
      ...rest,
      content: [
        {
          type: 'text',
          text: `tool result blocked: ${decision.reason || 'refused by an extension'}`,
        },
      ],
      isError: true,
    };
  if (!decision?.content) return output;
  return limitOutput(
    { ...rest, content: decision.content },
    setup.outputLimits ?? defaultOutputLimits(),
  );
}

/**
 * Why the arguments the model sent cannot be used (not JSON, past zot's bounds), if so. Checked
 * before any interceptor is asked or any frame is built from them.
 */
export function unusableArgs(name: string, args: Record<string, unknown>): string | undefined {
  const bound = (problem: string) =>
    `the arguments for tool "${name}" are ${problem}, past zot's bounds for tool arguments; call it again with smaller arguments (or write the data to a file and pass its path)`;
  if (ARGS_REFUSED_KEY in args) return bound(String(args[ARGS_REFUSED_KEY]));
  if (INVALID_JSON_KEY in args)
    return `the arguments for tool "${name}" were not valid JSON: ${String(args[INVALID_JSON_KEY])}`;
  const problem = jsonLimitProblem(args, TOOL_ARGS_LIMITS);
  return problem === undefined ? undefined : bound(problem);
}

async function execute(
  call: ToolCallBlock,
  tool: Tool | undefined,
  preview: string,
  setup: AgentSetup,
  signal: AbortSignal,
): Promise<ToolOutput> {
  if (signal.aborted) return errorOutput(`${call.name}: not run, the turn was aborted`);
  if (!tool) {
    const names =
      setup
        .activeTools()
        .map((t) => t.name)
        .join(', ') || 'none';
    return errorOutput(`unknown tool "${call.name}"; available tools: ${names}`);
  }
  // Arguments that cannot run are refused before any interceptor is asked: a frame is never
  // built from arguments past the bounds, and a guard never decides on what cannot run.
  const unusable = unusableArgs(call.name, call.args);
  if (unusable) return errorOutput(unusable);
  let args = call.args;
  if (setup.hooks.beforeToolCall) {
    let decision;
    try {
      decision = await setup.hooks.beforeToolCall({ id: call.id, name: call.name, args });
    } catch {
      decision = undefined;
    }
    if (decision?.block) {
      return errorOutput(`tool call blocked: ${decision.reason || 'refused by an extension'}`);
    }
    if (decision?.args) {
      const problem = jsonLimitProblem(decision.args, TOOL_ARGS_LIMITS);
      if (problem)
        return errorOutput(`the rewritten arguments for tool "${call.name}" are ${problem}`);
      args = decision.args;
    }
  }
  // The model's arguments or an interceptor's rewrite: checked without blocking the event loop
  // however costly the schema (check-args.ts); a call that could not be checked does not run.
  const invalid = await checkArgs({
    tool: call.name,
    schema: tool.parameters,
    args,
    signal,
    ...(tool.argsValidator ? { precompiled: tool.argsValidator } : {}),
  });
  if (invalid) return errorOutput(invalid);
  if (setup.hooks.confirmToolCall) {
    // The event's preview, unless an interceptor changed what will run.
    const shown = args === call.args ? preview : previewCall(tool, args);
    let answer;
    try {
      answer = await setup.hooks.confirmToolCall({
        id: call.id,
        name: call.name,
        args,
        preview: shown,
        detail: detailCall(tool, args),
      });
    } catch {
      answer = 'deny' as const;
    }
    if (typeof answer === 'object')
      return errorOutput(`${call.name} was not run: ${answer.reason}`);
    if (answer !== 'allow') return errorOutput(`the user denied this ${call.name} call`);
  }
  try {
    const output = await tool.execute(args, {
      cwd: setup.cwd,
      toolCallId: call.id,
      signal,
      onProgress: (text) => setup.emit({ type: 'tool_progress', id: call.id, text }),
    });
    // Built-in tools cut their own output their own way; every other tool gets the same bound.
    return tool.limitsOwnOutput
      ? output
      : limitOutput(output, setup.outputLimits ?? defaultOutputLimits());
  } catch (error) {
    return errorOutput(`${call.name} failed: ${errorMessage(error)}`);
  }
}
