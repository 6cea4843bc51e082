// `zot acp`: one zot runtime per ACP session, each in the directory the editor names.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { zotPaths } from '../config/paths.js';
import type { AcpRuntime, AcpSession } from '../contract/front-end.js';
import type { ModeIO } from '../modes/io.js';
import { listSessionsOf } from '../session/session-files.js';
import { sessionDir } from '../session/store.js';
import type { CliOptions } from './args.js';
import { createProviderAccess } from './provider-access.js';
import { chooseProviderModel, createRuntime, type Runtime, type Warn } from './setup.js';
import { zotVersion } from './version.js';

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
      if (mcpServers && mcpServers.length > 0) {
        warn(
          `the editor's MCP servers (${mcpServers.map((s) => s.name).join(', ')}) are not used yet: add them to $ZOT_HOME/mcp.json (docs/mcp.md)`,
        );
      }
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
      );
      runtimes.add(made);
      const opened: AcpSession = made.session;
      return opened;
    },
    sessions: (cwd) => listSessionsOf(paths.sessions, cwd),
    providers: () => access.providers(),
  };
  try {
    return await runAcpMode(runtime, io, { version: zotVersion(), noYolo: options.noYolo }, stop);
  } finally {
    await Promise.allSettled([...runtimes].map((made) => made.dispose()));
  }
}
