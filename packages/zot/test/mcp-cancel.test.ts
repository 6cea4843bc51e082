// zot's cancel of an MCP tool call reaches the MCP server: the host's signal aborts, the host
// sends `cancel`, the bridge (examples/extensions/mcp) tells its MCP client, and the server gets
// notifications/cancelled for the request it is working on (test/fixtures/mcp-slow-server.mjs,
// whose `wait` tool answers only then). Real processes over real pipes, the host in-process.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ExtensionHost } from '../src/extensions/host.js';
import { expectNoLeftovers } from './support/extensions.js';
import { MCP_EXT, mcpEnv, writeMcpConfig } from './support/mcp.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox } from './support/zot.js';

const SLOW = fileURLToPath(new URL('../../test/fixtures/mcp-slow-server.mjs', import.meta.url));

const readLog = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
};

/** Resolves once the fixture has stamped `event` (it appends a JSON line per stamp). */
async function stamped(file: string, event: string, log: string): Promise<void> {
  const give = Date.now() + hangGuard(20_000);
  for (;;) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // not written yet
    }
    if (text.split('\n').some((line) => line.includes(`"event":"${event}"`))) return;
    if (Date.now() > give)
      throw new Error(`the MCP server never stamped "${event}":\n${text}\n${readLog(log)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a cancelled MCP tool call sends notifications/cancelled to its server', async (t) => {
  const box = makeSandbox();
  const base = join(box.home, '..');
  const control = join(base, 'control.json');
  const stamps = join(base, 'stamps.jsonl');
  writeFileSync(control, JSON.stringify({ tools: ['wait'], delayMs: 0 }));
  writeMcpConfig(join(box.home, 'mcp.json'), {
    slow: { command: process.execPath, args: [SLOW, '--control', control, '--stamps', stamps] },
  });
  const host = new ExtensionHost({
    cwd: box.project,
    zotHome: box.home,
    logsDir: join(base, 'logs'),
    extPaths: [MCP_EXT],
    noExt: true,
    version: '0.0.0-test',
    model: () => ({ provider: 'anthropic', model: 'test-model' }),
    builtins: { commands: new Set(), tools: new Set() },
    env: { ...process.env, ...mcpEnv(), ZOT_HOME: box.home },
  });
  // after hooks run in order: the host ends its processes, none is left, then the files go
  t.after(() => host.shutdown());
  expectNoLeftovers(t, base);
  t.after(() => box.cleanup());
  const log = join(base, 'logs', 'ext-mcp.log');
  const [report] = await host.start();
  assert.equal(report?.status, 'ready', report?.error);
  const tool = host.toolSource.find('mcp__slow__wait');
  assert.ok(tool, 'the bridge registered mcp__slow__wait');
  const controller = new AbortController();
  const call = tool.execute(
    {},
    { cwd: box.project, toolCallId: 'w1', signal: controller.signal, onProgress: () => undefined },
  );
  await stamped(stamps, 'waiting', log);
  controller.abort();
  await stamped(stamps, 'cancelled', log);
  const output = await call.catch((error: unknown) => error);
  assert.ok(output !== undefined, 'the call settled');
});
