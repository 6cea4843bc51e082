// mcp: MCP servers as zot tools. Reads `.mcp.json` (project, after approval) and
// `$ZOT_HOME/mcp.json` (user), connects with the official MCP SDK client, and registers each
// server's tools as `mcp__<server>__<tool>`. See docs/mcp.md.
import { createExtension } from '@zot/sdk';
import { Bridge } from './bridge.js';
import { zotHome } from './config.js';
import { mcpCommand } from './commands.js';

const ext = createExtension({ name: 'mcp', version: '1.0.0' });
let bridge: Bridge | undefined;

/**
 * How long start-up waits for servers before `ready`: well inside zot's ready deadline (a
 * server that takes longer registers its tools when it gets there).
 */
function startupBudgetMs(env: NodeJS.ProcessEnv): number {
  const set = Number(env.ZOT_MCP_STARTUP_WAIT_MS);
  const ready = Number(env.ZOT_EXT_READY_TIMEOUT_MS) || 3000;
  const ceiling = Math.floor(ready * 0.6);
  return Number.isFinite(set) && set >= 0 ? Math.min(set, ceiling) : ceiling;
}

ext.command(
  'mcp',
  'MCP servers: /mcp (state), /mcp restart <server>, /mcp trust (the project .mcp.json)',
  (args) => (bridge ? mcpCommand(bridge)(args) : 'mcp: not started yet'),
);

ext.onHello(async (host) => {
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
  const all = Promise.all(active.startAll());
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>(
    (resolve) => (timer = setTimeout(resolve, startupBudgetMs(process.env))),
  );
  await Promise.race([all, budget]);
  clearTimeout(timer);
  if (active.problems.length > 0) {
    ext.notify('warn', `mcp: ${active.problems.length} configuration or tool problem(s); see /mcp`);
  }
});

ext.onShutdown(() => bridge?.stopAll());

await ext.run();
