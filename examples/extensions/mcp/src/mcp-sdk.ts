// The parts of the official MCP SDK the bridge uses, in one module that server.ts imports on its
// first connection: evaluating the SDK (its zod schemas, its JSON Schema validator) takes longer
// than everything else the extension does before `ready`, and servers whose tools are cached
// are connected after `ready`.
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export {
  ResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
