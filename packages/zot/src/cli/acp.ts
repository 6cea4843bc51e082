// `zot acp`: one zot runtime per ACP session, each in the directory the editor names.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readJsonObject } from '../config/json-file.js';
import { zotPaths } from '../config/paths.js';
import type { AcpRuntime, AcpSession, EditorMcpServer } from '../contract/front-end.js';
import type { ModeIO } from '../modes/io.js';
import { listSessionsOf } from '../session/session-files.js';
import { sessionDir } from '../session/store.js';
import type { CliOptions } from './args.js';
import { createProviderAccess } from './provider-access.js';
import { chooseProviderModel, createRuntime, type Runtime, type Warn } from './setup.js';
import { zotVersion } from './version.js';

/**
 * The editor's MCP servers for the MCP bridge extension, in its configuration format (the
 * `mcpServers` table of mcp.json), as ZOT_MCP_EDITOR_SERVERS. They are the user's own choice:
 * the bridge treats them as the user's mcp.json servers (no project trust).
 */
function bridgeEnv(servers: readonly EditorMcpServer[]): Record<string, string> {
  const table = Object.fromEntries(
    servers.map((server) => [
      server.name,
      server.transport === 'stdio'
        ? { command: server.command, args: server.args, env: server.env }
        : { type: 'http', url: server.url, headers: server.headers },
    ]),
  );
  return { ZOT_MCP_EDITOR_SERVERS: JSON.stringify(table) };
}

/** What a session id may look like: a session file's name without `.jsonl`. */
const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** Contract: rejects naming what is wrong with `cwd` or `sessionId`. */
function recordedPath(root: string, cwd: string, sessionId: string): string {
  const path = SESSION_ID.test(sessionId)
    ? join(sessionDir(root, cwd), `${sessionId}.jsonl`)
    : undefined;
  if (path === undefined || !existsSync(path)) {
    throw new Error(
      `no recorded session "${sessionId.slice(0, 200)}" in ${cwd} (session/list names the ones there are)`,
    );
  }
  return path;
}

/** config.json's `acp.client_terminal` (default false); a wrong type is a warning. */
function clientTerminalSetting(path: string, warn: Warn): boolean {
  const read = readJsonObject<Record<string, unknown>>(path);
  if (!read.ok) return false; // the settings loader reports the file itself
  const block = read.value?.acp;
  if (block === undefined) return false;
  const value =
    block !== null && typeof block === 'object' && !Array.isArray(block)
      ? (block as Record<string, unknown>).client_terminal
      : null;
  if (value === undefined || typeof value === 'boolean') return value === true;
  warn(`${path}: "acp.client_terminal" must be true or false; client terminals stay off`);
  return false;
}

export async function runAcp(
  options: CliOptions,
  io: ModeIO & { stdin: NodeJS.ReadableStream },
  stop: AbortSignal,
  warn: Warn,
): Promise<number> {
  const { runAcpMode } = await import('../modes/acp/server.js');
  const paths = zotPaths();
  const { provider, configured } = chooseProviderModel(options, paths, warn);
  const access = createProviderAccess({ options, paths, start: provider, configured });
  const runtimes = new Set<Runtime>();
  const runtime: AcpRuntime = {
    async open({ cwd, sessionId, mcpServers }) {
      if (!isAbsolute(cwd)) throw new Error(`cwd must be an absolute path, got "${cwd}"`);
      const session =
        sessionId === undefined ? undefined : recordedPath(paths.sessions, cwd, sessionId);
      const made = await createRuntime(
        {
          ...options,
          cwd,
          continue: false,
          ...(session !== undefined ? { session, noSession: false } : { session: undefined }),
        },
        'acp',
        warn,
        mcpServers && mcpServers.length > 0 ? { mcp: bridgeEnv(mcpServers) } : undefined,
      );

      runtimes.add(made);
      const opened: AcpSession = made.session;
      return opened;
    },
    sessions: (cwd) => listSessionsOf(paths.sessions, cwd),
    providers: () => access.providers(),
  };
  try {
    const info = {
      version: zotVersion(),
      noYolo: options.noYolo,
      clientTerminal: options.clientTerminal || clientTerminalSetting(paths.config, warn),
    };
    return await runAcpMode(runtime, io, info, stop);
  } finally {
    await Promise.allSettled([...runtimes].map((made) => made.dispose()));
  }
}
