// The MCP bridge example and the real MCP servers it is tested against (installed from npm as
// the repository's dev dependencies): paths, configuration files and the environment.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLES, FAST_TIMEOUTS } from './extensions.js';
import { deadline } from './timing.js';

export const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
export const MCP_EXT = join(EXAMPLES, 'mcp');
export const EVERYTHING = join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const FILESYSTEM = join(
  ROOT,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

/** A real MCP server sending what a broken or hostile one might (test/fixtures). */
export const HOSTILE = fileURLToPath(
  new URL('../../../test/fixtures/mcp-hostile-server.mjs', import.meta.url),
);

export const everything = () => ({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
export const filesystem = (dir: string) => ({ command: process.execPath, args: [FILESYSTEM, dir] });

/** Writes `{"mcpServers": servers, ...extra}` to `path`. */
export function writeMcpConfig(
  path: string,
  servers: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify({ mcpServers: servers, ...extra }, null, 2));
}

/**
 * zot's extension timeouts for the bridge: MCP servers are Node programs that start in a few
 * start-ups each, and the bridge waits for them within a share of the ready deadline.
 */
export function mcpEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...FAST_TIMEOUTS,
    ZOT_EXT_READY_TIMEOUT_MS: String(deadline(60, 10_000)),
    ZOT_EXT_TOOL_TIMEOUT_MS: String(deadline(80, 15_000)),
    ZOT_EXT_COMMAND_TIMEOUT_MS: String(deadline(80, 15_000)),
    ...extra,
  };
}

/** A TCP port free a moment ago (for a server that takes its port from the environment). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
