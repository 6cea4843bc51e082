// The MCP bridge (examples/extensions/mcp) against the MCP SDK client used directly, in the
// same run, for two calls over stdio: server-everything's `echo` (almost no work in the server,
// so the ratio shows the bridge's fixed cost) and server-filesystem's `read_text_file` of a
// small file (a typical call):
// - baseline: `client.callTool` on an SDK client of our own, connected to its own server;
// - subject: `tool.execute(args)` on the host's `mcp__everything__echo` tool, which goes
//   host -> extension pipe -> bridge -> the bridge's SDK client -> its server and back.
// Each side has its own server process, so neither waits on the other; calls alternate in blocks.
// Two floors run in the same blocks: bare forwarders (bench/support/mcp-floor) with hand-written
// zot frames and no checks, one speaking JSON-RPC by hand (report only) and one on the MCP SDK
// client. They show how much of the bridge's cost is the extra process, how much the MCP SDK,
// and how much the bridge's own work. Targets per call: at most 0.25 ms added to the SDK client's
// median, and at most 1.1x the forwarder on the MCP SDK client.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ratioInterval, ROOT, row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  extensionEnv,
  startHost,
  tempRoot,
} from '../lib/ext.mjs';

const BLOCK = 50;
/** The targets of every call: ms added to the SDK client's median, ratio to the SDK forwarder. */
const TARGETS = { addedMs: 0.25, forwarderRatio: 1.1 };
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MCP_EXT = join(ROOT, 'examples/extensions/mcp');
const FLOORS = {
  raw: {
    dir: join(ROOT, 'bench/support/mcp-floor/raw'),
    metric: 'floor: bare forwarder, JSON-RPC by hand',
  },
  sdk: {
    dir: join(ROOT, 'bench/support/mcp-floor/sdk'),
    metric: 'floor: bare forwarder on the MCP SDK client',
  },
};

/** The calls compared. */
const CASES = [
  {
    metric: 'MCP echo (no work in the server)',
    server: 'everything',
    tool: 'echo',
    args: (i) => ({ message: `message ${i}` }),
    expect: (i) => `Echo: message ${i}`,
  },
  {
    metric: 'MCP read_text_file of a 2 KiB file',
    server: 'fs',
    tool: 'read_text_file',
    args: (_i, dir) => ({ path: join(dir, 'notes.txt') }),
    expect: () => NOTES,
  },
  {
    metric: 'MCP search_files over 400 files',
    server: 'fs',
    tool: 'search_files',
    args: (_i, dir) => ({ path: join(dir, 'tree'), pattern: '**/*7.md' }),
    expect: (_i, dir) => TREE_HITS(dir),
  },
];
const NOTES = 'zot bench line\n'.repeat(128).slice(0, 2048);

/** 20 directories of 20 files; the paths search_files answers with for `**\/*7.md`, sorted. */
function writeTree(dir) {
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(dir, 'tree', `d${d}`), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(dir, 'tree', `d${d}`, `f${f}.md`), 'x');
  }
}
let treeHits;
const TREE_HITS = (dir) => treeHits;

export async function run(options) {
  const root = tempRoot('mcp');
  const home = join(root.dir, 'zot-home');
  const files = join(root.dir, 'files');
  mkdirSync(home, { recursive: true });
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'notes.txt'), NOTES);
  writeTree(files);
  // The root's path is on every server's command line, so assertNoLeftovers finds leftovers.
  const servers = {
    everything: { command: process.execPath, args: [EVERYTHING, 'stdio', root.dir] },
    fs: { command: process.execPath, args: [FILESYSTEM, files] },
  };
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  // Both sides' servers get the same environment and working directory as the bridge's.
  const env = { ...extensionEnv(), ZOT_HOME: home, ZOT_EXT_READY_TIMEOUT_MS: '20000' };
  const rows = [];
  let host;
  const floorHosts = {};
  const clients = {};
  try {
    for (const [name, server] of Object.entries(servers)) {
      clients[name] = new Client({ name: 'bench', version: '1.0.0' });
      await clients[name].connect(
        new StdioClientTransport({ ...server, env, cwd: root.dir, stderr: 'ignore' }),
      );
    }
    host = await startHost(root.dir, [MCP_EXT], { env });
    for (const [name, floor] of Object.entries(FLOORS)) {
      floorHosts[name] = await startHost(root.dir, [floor.dir], { env });
    }
    const controller = new AbortController();
    let seq = 0;
    treeHits = (
      await clients.fs.callTool({
        name: 'search_files',
        arguments: CASES[2].args(0, files),
      })
    ).content[0].text;
    if (treeHits.split('\n').length !== 40) throw new Error(`search_files found ${treeHits}`);
    for (const c of CASES) {
      const toolOf = (h) => {
        const tool = h.toolSource.find(`mcp__${c.server}__${c.tool}`);
        if (!tool) throw new Error(`mcp__${c.server}__${c.tool} not registered`);
        return tool;
      };
      /** A call of the host's tool, timed; the result is checked after the clock stops. */
      const viaHost = (tool) => async (i) => {
        const start = performance.now();
        const output = await tool.execute(c.args(i, files), {
          cwd: root.dir,
          toolCallId: `call_${++seq}`,
          signal: controller.signal,
          onProgress: () => undefined,
        });
        const ms = performance.now() - start;
        if (output.isError || output.content[0]?.text !== c.expect(i, files)) {
          throw new Error(`unexpected tool output: ${JSON.stringify(output).slice(0, 500)}`);
        }
        return ms;
      };
      const variants = {
        direct: async (i) => {
          const start = performance.now();
          const result = await clients[c.server].callTool({
            name: c.tool,
            arguments: c.args(i, files),
          });
          const ms = performance.now() - start;
          if (result.content?.[0]?.text !== c.expect(i, files)) {
            throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 500)}`);
          }
          return ms;
        },
        bridge: viaHost(toolOf(host)),
      };
      for (const name of Object.keys(FLOORS)) variants[name] = viaHost(toolOf(floorHosts[name]));
      await alternateBlocks(rounds(options, 300, 100), BLOCK, variants);
      const calls = await alternateBlocks(rounds(options, 2000, 400), BLOCK, variants);
      // The load while the calls ran, and what the ratio could have been (see ratioInterval).
      const load = `load average ${loadavg()[0].toFixed(1)}`;
      const noted = (baseline, subject) => {
        const interval = ratioInterval(baseline, subject);
        return { note: `${load}; ratio 95% interval ${interval.low}-${interval.high}` };
      };
      rows.push(
        row(
          `${c.metric}: bridge vs SDK client`,
          calls.direct,
          calls.bridge,
          { maxAddedMs: TARGETS.addedMs },
          noted(calls.direct, calls.bridge),
        ),
        row(
          `${c.metric}: bridge vs ${FLOORS.sdk.metric}`,
          calls.sdk,
          calls.bridge,
          { maxRatio: TARGETS.forwarderRatio },
          noted(calls.sdk, calls.bridge),
        ),
      );
      for (const [name, floor] of Object.entries(FLOORS)) {
        const none = { maxRatio: Infinity };
        const floorRow = row(
          `${c.metric}: ${floor.metric} vs SDK client`,
          calls.direct,
          calls[name],
          none,
          noted(calls.direct, calls[name]),
        );
        rows.push({ ...floorRow, target: 'none (floor)', pass: null });
      }
    }
  } finally {
    await Promise.all(Object.values(clients).map((client) => client.close()));
    await host?.shutdown();
    await Promise.all(Object.values(floorHosts).map((h) => h.shutdown()));
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'mcp', rows };
}
