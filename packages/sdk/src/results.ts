// What handlers return: command results, tool results and interception decisions, with the
// helpers that build them. Plain data in the SDK's own (camelCase) shape; extension.ts turns
// them into wire frames.
import type { ContentBlock, PanelSpec } from '@zot/protocol';

/** A command's answer (`command_response`): one action, or an error shown in red. */
export type CommandResult =
  | { readonly action: 'prompt'; readonly prompt: string }
  | { readonly action: 'insert'; readonly insert: string }
  | { readonly action: 'display'; readonly display: string }
  | { readonly action: 'open_panel'; readonly panel: PanelSpec }
  | { readonly action: 'noop' }
  | { readonly action: 'error'; readonly error: string };

/** Submits `text` as a user message; the agent runs a turn. */
export function prompt(text: string): CommandResult {
  return { action: 'prompt', prompt: text };
}

/** Puts `text` into the editor at the cursor, without sending it. */
export function insert(text: string): CommandResult {
  return { action: 'insert', insert: text };
}

/** Shows `text` as a one-shot note: no model call, nothing in the transcript. */
export function display(text: string): CommandResult {
  return { action: 'display', display: text };
}

/** Opens an extension-owned panel (as the command's answer). */
export function openPanel(panel: PanelSpec): CommandResult {
  return { action: 'open_panel', panel };
}

/** The command did its work itself; the UI does not change. */
export function noop(): CommandResult {
  return { action: 'noop' };
}

/** The command failed: `message` is shown as a red status line. */
export function error(message: string): CommandResult {
  return { action: 'error', error: message };
}

/** A tool's answer (`tool_result`). */
export interface ToolResult {
  readonly content: readonly ContentBlock[];
  readonly isError?: boolean;
  /** Registered deferred tools to make available after this result. */
  readonly activateTools?: readonly string[];
}

/** Options every tool-result helper takes. */
export interface ToolResultOptions {
  readonly activateTools?: readonly string[];
}

function withOptions(result: ToolResult, options: ToolResultOptions | undefined): ToolResult {
  return options?.activateTools ? { ...result, activateTools: options.activateTools } : result;
}

/** A text result. */
export function text(s: string, options?: ToolResultOptions): ToolResult {
  return withOptions({ content: [{ type: 'text', text: s }] }, options);
}

/** An image result: `data` is base64, `mimeType` for example "image/png". */
export function image(mimeType: string, base64: string, options?: ToolResultOptions): ToolResult {
  return withOptions({ content: [{ type: 'image', mime_type: mimeType, data: base64 }] }, options);
}

/** A failed call: the model sees `message` as the tool's error. */
export function toolError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Joins results (text plus images, say) into one; an error in any makes the whole an error. */
export function results(...parts: readonly ToolResult[]): ToolResult {
  const activate = parts.flatMap((p) => p.activateTools ?? []);
  return {
    content: parts.flatMap((p) => p.content),
    ...(parts.some((p) => p.isError) ? { isError: true } : {}),
    ...(activate.length > 0 ? { activateTools: activate } : {}),
  };
}

/** An interceptor's verdict. Returning `undefined` from an interceptor is the same as allow(). */
export interface Decision {
  readonly block?: boolean;
  readonly reason?: string;
  /** tool_call only: the arguments the tool will see instead. */
  readonly modifiedArgs?: Record<string, unknown>;
  /** assistant_message only: the text the user sees instead. */
  readonly replaceText?: string;
  /** With replaceText: "transcript" replaces the model's own copy too (later turns). */
  readonly scope?: 'transcript';
  /** tool_result only: the content the model gets instead. */
  readonly replaceContent?: readonly ContentBlock[];
  /** user_prompt only: the prompt text instead. */
  readonly modifiedText?: string;
  /** turn_start only: context the model gets for this turn, attributed to this extension. */
  readonly addContext?: string;
}

/** Let the action pass unchanged. */
export function allow(reason?: string): Decision {
  return reason === undefined ? {} : { reason };
}

/** Refuse the action; for a tool call the model sees `reason` as the tool's error. */
export function block(reason: string): Decision {
  return { block: true, reason };
}

/** Run the tool call with these arguments instead. */
export function modify(args: Record<string, unknown>, reason?: string): Decision {
  return { modifiedArgs: args, ...(reason === undefined ? {} : { reason }) };
}

/**
 * Show this text to the user instead of the assistant's. The model keeps its own, unless
 * `scope` is "transcript": then later turns get this text too.
 */
export function replaceText(text: string, reason?: string, scope?: 'transcript'): Decision {
  return {
    replaceText: text,
    ...(reason === undefined ? {} : { reason }),
    ...(scope === undefined ? {} : { scope }),
  };
}

/** Give the model this content instead of the tool's result (a string is one text block). */
export function replaceContent(
  content: string | readonly ContentBlock[],
  reason?: string,
): Decision {
  const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  return { replaceContent: blocks, ...(reason === undefined ? {} : { reason }) };
}

/** Run the prompt with this text instead. */
export function modifyText(text: string, reason?: string): Decision {
  return { modifiedText: text, ...(reason === undefined ? {} : { reason }) };
}

/** Give the model this context for the turn (marked as coming from this extension). */
export function addContext(text: string): Decision {
  return { addContext: text };
}
