// mcp: MCP servers as zot tools. Reads `.mcp.json` (project, after approval) and
// `$ZOT_HOME/mcp.json` (user), connects with the official MCP SDK client, and registers each
// server's tools as `mcp__<server>__<tool>`. See docs/mcp.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExtension } from '@zot/sdk';
import { Bridge } from './bridge.js';
import { zotHome } from './config.js';
import { mcpCommand } from './commands.js';

const ext = createExtension({ name: 'mcp', version: '1.0.0' });
let bridge: Bridge | undefined;

/**
 * How long start-up may hold `ready` for servers listed in no earlier run (those with a cached
 * list are never waited for): 3/4 of zot's ready deadline for this extension, since an extension
 * that has not said ready by then fails to load. That deadline is ZOT_EXT_READY_TIMEOUT_MS when
 * set, else this extension's `ready_timeout_ms` (extension.json), else zot's default.
 */
function readyBudgetMs(env: NodeJS.ProcessEnv, extensionDir: string): number {
  const set = env.ZOT_EXT_READY_TIMEOUT_MS;
  const fromEnv = set === undefined || set === '' ? NaN : Number(set);
  let deadline = Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 3000;
  if (!(Number.isFinite(fromEnv) && fromEnv >= 0)) {
    try {
      const manifest = JSON.parse(readFileSync(join(extensionDir, 'extension.json'), 'utf8'));
      if (Number.isInteger(manifest?.ready_timeout_ms)) deadline = manifest.ready_timeout_ms;
    } catch {
      // no manifest beside it (a test harness): zot's default
    }
  }
  return Math.floor(deadline * 0.75);
}

ext.command(
  'mcp',
  'MCP servers: /mcp (state), /mcp restart <server>, /mcp trust (the project .mcp.json)',
  (args) => (bridge ? mcpCommand(bridge)(args) : 'mcp: not started yet'),
);

ext.onHello(async (host, stopping) => {
  const active = new Bridge(ext, {
    home: zotHome(),
    cwd: host.cwd || process.cwd(),
    env: process.env,
  });
  bridge = active;
  active.load();
  if (active.projectRefused) {
    ext.notify(
      'warn',
      `${active.project!.path} names ${active.project!.servers.length} MCP server(s); they start only once you approve the file: review it with /mcp trust`,
    );
  }
  const began = performance.now();
  const starting = active.startAll();
  // Servers without a cached list: their tools are known only once they have listed them.
  const budget = readyBudgetMs(process.env, host.extensionDir);
  const unknown = starting.filter((s) => !s.fromCache).map((s) => s.server);
  // zot exiting meanwhile ends the wait (the shutdown that follows stops the servers).
  const exiting = new Promise<void>((resolve) =>
    stopping.aborted ? resolve() : stopping.addEventListener('abort', () => resolve()),
  );
  await Promise.race([Promise.all(unknown.map((server) => server.started(budget))), exiting]);
  if (stopping.aborted) return;
  for (const server of unknown.filter((s) => s.state === 'starting')) {
    ext.notify(
      'warn',
      `mcp: server "${server.name}" has not listed its tools within ${Math.round(performance.now() - began)} ms ` +
        `(the wait at start ends at 3/4 of zot's ready deadline for this extension: ` +
        `ZOT_EXT_READY_TIMEOUT_MS, else "ready_timeout_ms" in its extension.json); its tools ` +
        `are offered once it has, from the next model request on, and at once in later runs`,
    );
  }
  if (active.problems.length > 0) {
    ext.notify('warn', `mcp: ${active.problems.length} configuration or tool problem(s); see /mcp`);
  }
});

ext.onShutdown(() => bridge?.stopAll());

await ext.run();
