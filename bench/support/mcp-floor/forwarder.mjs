// Bench floor for the mcp suite, not a product: the least a zot extension can do to put MCP
// servers' tools in zot. It reads $ZOT_HOME/mcp.json (stdio servers only), registers every
// tool as mcp__<server>__<tool> and forwards calls, with hand-written zot frames and no checks
// at all. Mode `raw` speaks JSON-RPC to the servers by hand; mode `sdk` uses the official MCP
// SDK client, as the bridge does (examples/extensions/mcp). The gaps between these two and the
// bridge show what the extra process costs, what the MCP SDK costs and what the bridge's own
// work (zot's SDK, bounds, mapping) costs. Text results only (MCP's image blocks are not zot's).
// Run by zot as: node ../forwarder.mjs <raw|sdk>
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

const mode = process.argv[2];
const config = JSON.parse(readFileSync(join(process.env.ZOT_HOME, 'mcp.json'), 'utf8'));
const send = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`);

/** Calls `fn` with each complete line arriving on `stream`. */
function lines(stream, fn) {
  let pending = '';
  stream.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      fn(line);
    }
  });
}

/** A JSON-RPC client over a child's stdio, by hand: `request(method, params)` -> result. */
function rawClient(server) {
  const child = spawn(server.command, server.args ?? [], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, ...server.env },
  });
  const waiting = new Map();
  let next = 1;
  lines(child.stdout, (line) => {
    const message = JSON.parse(line);
    const settle = waiting.get(message.id);
    waiting.delete(message.id);
    settle?.(
      message.result ?? {
        content: [{ type: 'text', text: message.error?.message }],
        isError: true,
      },
    );
  });
  const write = (message) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      write({ id, method, params });
    });
  return {
    async connect() {
      const clientInfo = { name: 'floor', version: '1.0.0' };
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo });
      write({ method: 'notifications/initialized' });
    },
    request,
    close: () => child.kill(),
  };
}

/** The same through the MCP SDK's Client and StdioClientTransport. */
function sdkClient(server) {
  const client = new Client({ name: 'floor', version: '1.0.0' });
  return {
    connect: () =>
      client.connect(
        new StdioClientTransport({
          command: server.command,
          args: server.args ?? [],
          env: { ...process.env, ...server.env },
          stderr: 'ignore',
        }),
      ),
    request: (method, params) => client.request({ method, params }, ResultSchema),
    close: () => client.close(),
  };
}

const routes = new Map();
const clients = [];
/** Connects every server, then registers all their tools at once and says ready (a pause
 * between a registration and `ready` would make zot mark the extension ready on its own). */
async function start() {
  const listed = await Promise.all(
    Object.entries(config.mcpServers).map(async ([name, server]) => {
      const client = mode === 'raw' ? rawClient(server) : sdkClient(server);
      clients.push(client);
      await client.connect();
      return { name, client, tools: (await client.request('tools/list', {})).tools };
    }),
  );
  for (const { name, client, tools } of listed) {
    for (const tool of tools) {
      const { $schema: _dialect, ...schema } = tool.inputSchema;
      const zotName = `mcp__${name}__${tool.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
      if (zotName.length > 64 || tool.execution?.taskSupport === 'required') continue;
      routes.set(zotName, { client, tool: tool.name });
      const description = tool.description || tool.name;
      send({ type: 'register_tool', name: zotName, description, schema });
    }
  }
  send({ type: 'ready' });
}

lines(process.stdin, async (line) => {
  const frame = JSON.parse(line);
  if (frame.type === 'hello_ack') await start();
  else if (frame.type === 'tool_call') {
    const { client, tool } = routes.get(frame.name);
    const result = await client.request('tools/call', { name: tool, arguments: frame.args });
    send({
      type: 'tool_result',
      id: frame.id,
      content: result.content,
      is_error: result.isError === true,
    });
  } else if (frame.type === 'shutdown') {
    await Promise.all(clients.map((client) => client.close()));
    send({ type: 'shutdown_ack' });
    process.exit(0);
  }
});
send({ type: 'hello', name: `mcp-floor-${mode}`, version: '1.0.0', capabilities: ['tools'] });
