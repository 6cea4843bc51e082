// Diagnostic: the CPU time (user + system) one MCP tool call costs each process, through the
// bridge (examples/extensions/mcp) and through the bare forwarder on the MCP SDK client
// (support/mcp-floor/sdk), in alternating blocks of 200 calls in one run. CPU time is far less
// sensitive to the machine's load than the wall time the mcp suite compares, so on a busy
// machine this shows whether the bridge's own process does more work per call than the
// forwarder's, and how much: the host's share is this process's, the extension's and the
// server's are read from /proc (Linux only) before and after each block.
// Usage: node bench/support/mcp-call-cpu.mjs [blocks] [--echo] [--ext=<dir> ...]   (after
// `npm run build`; --ext adds another bridge build, e.g. a copy of main's, for an A/B)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../lib/common.mjs';
import { extensionEnv, startHost, tempRoot } from '../lib/ext.mjs';
import { benchCall } from '../lib/mcp-call.mjs';

const BLOCK = 200;
const blocks = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 10);
const echo = process.argv.includes('--echo');
const extra = process.argv.filter((a) => a.startsWith('--ext=')).map((a) => a.slice(6));
const root = tempRoot('mcp-call-cpu');
const files = join(root.dir, 'files');
mkdirSync(files, { recursive: true });
const { server, tool, args } = benchCall(files, echo);

/** CPU µs a process has used (utime + stime, in clock ticks of 10 ms). */
function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
const childrenOf = (pid) =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );

const sides = [];
const dirs = [
  ['forwarder', join(ROOT, 'bench/support/mcp-floor/sdk')],
  ['bridge', join(ROOT, 'examples/extensions/mcp')],
  ...extra.map((dir, i) => [`bridge ${i + 2}`, dir]),
];
try {
  for (const [name, dir] of dirs) {
    const home = join(root.dir, `home-${sides.length}`);
    mkdirSync(home);
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { s: server } }));
    const before = new Set(childrenOf(process.pid));
    const env = { ...extensionEnv(), ZOT_HOME: home, ZOT_EXT_READY_TIMEOUT_MS: '20000' };
    const host = await startHost(root.dir, [dir], { env });
    const extension = childrenOf(process.pid).find((pid) => !before.has(pid));
    const mcpServer = childrenOf(extension)[0];
    const bridged = host.toolSource.find(`mcp__s__${tool}`);
    sides.push({ name, host, extension, mcpServer, bridged, cpu: [0, 0, 0], calls: 0, wall: [] });
  }
  const signal = new AbortController().signal;
  const load = [loadavg()[0]];
  for (let block = -1; block < blocks; block++) {
    for (const side of block % 2 ? sides : [...sides].reverse()) {
      const own = process.cpuUsage();
      const ext = cpuOf(side.extension);
      const srv = cpuOf(side.mcpServer);
      for (let i = 0; i < BLOCK; i++) {
        const options = { cwd: root.dir, toolCallId: `c${i}`, signal, onProgress: () => undefined };
        const start = performance.now();
        await side.bridged.execute(args, options);
        if (block >= 0) side.wall.push(performance.now() - start);
      }
      if (block < 0) continue; // warm-up
      const used = process.cpuUsage(own);
      side.cpu[0] += used.user + used.system;
      side.cpu[1] += cpuOf(side.extension) - ext;
      side.cpu[2] += cpuOf(side.mcpServer) - srv;
      side.calls += BLOCK;
    }
  }
  load.push(loadavg()[0]);
  console.log(
    `${tool}: CPU µs per call, ${blocks} blocks of ${BLOCK} calls a side; load ${load.map((l) => l.toFixed(1)).join(' -> ')}`,
  );
  for (const side of sides) {
    const [host, ext, srv] = side.cpu.map((us) => (us / side.calls).toFixed(0).padStart(5));
    const wall = side.wall.sort((a, b) => a - b)[Math.floor(side.wall.length / 2)];
    console.log(
      `  ${side.name.padEnd(10)} host ${host}  extension ${ext}  server ${srv}  wall median ${(wall * 1000).toFixed(0)} µs`,
    );
  }
} finally {
  for (const side of sides) await side.host.shutdown();
  root.cleanup();
}
