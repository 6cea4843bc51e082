// The one Tool contract shared by built-in and extension tools.
import type { ErrorObject } from 'ajv';
import type { ToolDetails } from '../contract/tool-details.js';
import type {
  ImageBlock,
  JsonSchema,
  TextBlock,
  ToolResultAttribution,
} from '../providers/types.js';

export type { ToolDetails } from '../contract/tool-details.js';

export type ToolContent = TextBlock | ImageBlock;

export interface ToolContext {
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  toolCallId: string;
  /** Aborted when the user aborts the turn; tools must stop promptly. */
  signal: AbortSignal;
  /** Reports a progress line (shown as `tool_progress`). */
  onProgress(text: string): void;
}

/** Who produced a tool result, when it was not a built-in tool (kept in the transcript). */
export type ToolAttribution = ToolResultAttribution;

export interface ToolOutput {
  /** What the model gets back. */
  content: ToolContent[];
  isError?: boolean;
  /** What the UI gets besides (a diff, an exit code); never sent to the model. */
  details?: ToolDetails;
  attribution?: ToolAttribution;
  /** Names of deferred tools this result activates (extension tools). */
  activateTools?: string[];
}

/** A compiled argument check in Ajv's shape: false with `errors` set when invalid. */
export type ArgsValidator = ((args: unknown) => boolean) & { errors?: ErrorObject[] | null };

export interface Tool {
  name: string;
  description: string;
  /** The extension that provides it; absent for the built-in tools. */
  extension?: string;
  /** JSON Schema of the arguments object; the agent validates arguments against it. */
  parameters: JsonSchema;
  /**
   * `parameters` compiled at build time (the built-in tools). Without it the agent compiles
   * `parameters` with Ajv, loaded on the first call of such a tool.
   */
  argsValidator?: ArgsValidator;
  /**
   * Runs the tool. Contract: may throw; the agent turns a throw into an error result.
   * Arguments have already been validated against `parameters`.
   */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
  /**
   * True when the tool keeps its results within the built-in limits itself (the built-in
   * tools); other results are cut by the agent (2000 lines / 50 KB, the rest saved to a file).
   */
  limitsOwnOutput?: boolean;
  /**
   * A one-line summary of a call, shown in confirmation prompts and on the tool_call event.
   * May throw; the agent then falls back to the arguments as JSON (see previewCall).
   */
  preview?(args: Record<string, unknown>): string;
  /**
   * Everything a call will do, for a person deciding whether it runs (bash: the command as the
   * model wrote it, every line). May throw; the default is every argument as indented JSON
   * (see detailCall).
   */
  detail?(args: Record<string, unknown>): string;
}
