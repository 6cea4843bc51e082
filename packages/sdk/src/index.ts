// @zot/sdk: write zot extensions in TypeScript. Imports @zot/protocol only (bundled into the
// packed tarball, so an installed SDK has no runtime dependencies).
export { InMemoryTransport, PROTOCOL_VERSION } from '@zot/protocol';
export type {
  ContentBlock,
  EventFrame,
  EventName,
  FrameFromExtension,
  FrameFromHost,
  NotifyLevel,
  PanelKey,
  PanelSpec,
  Transport,
} from '@zot/protocol';
export { Extension, createExtension } from './extension.js';
export type * from './extension-types.js';
export {
  addContext,
  allow,
  block,
  display,
  error,
  image,
  insert,
  modify,
  modifyText,
  noop,
  openPanel,
  prompt,
  replaceContent,
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
export { WebSocketConnection, type Listening, type ListenOptions } from './listen.js';
