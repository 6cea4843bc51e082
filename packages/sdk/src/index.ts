// @zot/sdk: write zot extensions in TypeScript. Imports @zot/protocol only (bundled into the
// packed tarball, so an installed SDK has no runtime dependencies).
export { InMemoryTransport, PROTOCOL_VERSION } from '@zot/protocol';
export type {
  ContentBlock,
  EventFrame,
  EventName,
  FrameFromHost,
  NotifyLevel,
  PanelKey,
  PanelSpec,
  Transport,
} from '@zot/protocol';
export {
  Extension,
  createExtension,
  type AssistantMessage,
  type CommandContext,
  type CommandHandler,
  type CommandReturn,
  type EventOf,
  type ExtensionOptions,
  type HostInfo,
  type Interceptor,
  type OpenPanelFrame,
  type PanelKeyEvent,
  type SdkFrame,
  type ToolCall,
  type ToolContext,
  type ToolHandler,
  type ToolOptions,
  type ToolReturn,
  type TurnStart,
} from './extension.js';
export {
  allow,
  block,
  display,
  error,
  image,
  insert,
  modify,
  noop,
  openPanel,
  prompt,
  replaceText,
  results,
  text,
  toolError,
  type CommandResult,
  type Decision,
  type ToolResult,
  type ToolResultOptions,
} from './results.js';
export type { ArgsOf, FromSchema, JsonSchema } from './schema-types.js';
export { StdioTransport } from './stdio.js';
