// Diagnostic: where the time of one MCP tool call goes, through the bridge and direct, hop by
// hop. The same 2 KiB read_text_file call as the mcp suite (or server-everything's echo with
// --echo), made in alternating blocks of 50 by an SDK client of our own (direct) and by the
// host's bridged tool (bridge). Every process (this one, the extension, both servers) loads
// hop-stamps.mjs, which stamps each pipe write and read on the shared monotonic clock; the
// stamps between a call's start and end are then paired into hops and summarised (medians, the
// first 10% of calls left out as warm-up). Linux only (it finds the processes in /proc).
// Usage: node bench/support/mcp-hops.mjs [calls per variant] [--echo]   (after `npm run build`)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from '../lib/common.mjs';
import { extensionEnv, startHost, tempRoot } from '../lib/ext.mjs';
import { benchCall } from '../lib/mcp-call.mjs';

const PRELOAD = fileURLToPath(new URL('./hop-stamps.mjs', import.meta.url));
if (globalThis.__hopStamp === undefined) {
  // run again with the preload, stamps going to a fresh directory
  const root = tempRoot('mcp-hops');
  const child = spawnSync(
    process.execPath,
    ['--import', PRELOAD, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, HOP_STAMPS_DIR: root.dir } },
  );
  root.cleanup();
  process.exit(child.status ?? 1);
}

const echo = process.argv.includes('--echo');
const calls = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 2000);
const stampsDir = process.env.HOP_STAMPS_DIR;
const work = join(stampsDir, 'work');
const files = join(work, 'files');
const home = join(work, 'zot-home');
mkdirSync(files, { recursive: true });
mkdirSync(home, { recursive: true });
const { server, tool, args } = benchCall(files, echo);
writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { s: server } }));
const env = {
  ...extensionEnv(),
  ZOT_HOME: home,
  ZOT_EXT_READY_TIMEOUT_MS: '20000',
  NODE_OPTIONS: `--import ${PRELOAD}`,
  HOP_STAMPS_DIR: stampsDir,
};

const transport = new StdioClientTransport({ ...server, env, cwd: work, stderr: 'ignore' });
const client = new Client({ name: 'hops', version: '1.0.0' });
await client.connect(transport);
const host = await startHost(work, [join(ROOT, 'examples/extensions/mcp')], { env });
const bridged = host.toolSource.find(`mcp__s__${tool}`);
const signal = new AbortController().signal;
const stamp = globalThis.__hopStamp;
for (let done = 0; done < calls; done += 50) {
  for (let k = 0; k < 50; k++) {
    stamp('D0');
    await client.callTool({ name: tool, arguments: args });
    stamp('D1');
  }
  for (let k = 0; k < 50; k++) {
    stamp('B0');
    const opts = { cwd: work, toolCallId: `c${done + k}`, signal, onProgress: () => undefined };
    await bridged.execute(args, opts);
    stamp('B1');
  }
}

/** The pids of a process's children. */
const children = (pid) =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
  );
const extPid = children(process.pid).find((pid) =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('mcp.mjs'),
);
const roles = {
  [process.pid]: 'bench',
  [transport.pid]: 'direct-server',
  [extPid]: 'extension',
  ...Object.fromEntries(children(extPid).map((pid) => [pid, 'bridge-server'])),
};
await client.close();
await host.shutdown();

const events = [];
for (const file of readdirSync(stampsDir).filter(
  (f) => f.endsWith('.txt') && f !== `${process.pid}.txt`,
)) {
  const pid = file.slice(0, -4);
  for (const line of readFileSync(join(stampsDir, file), 'utf8').split('\n').filter(Boolean)) {
    const [label, at] = line.split(' ');
    events.push({ at: BigInt(at), who: roles[pid] ?? pid, label });
  }
}
// this process's own stamps are written only at exit: taken from memory
const own = globalThis.__hopStamps;
for (let i = 0; i < own.length; i += 2)
  events.push({ at: own[i + 1], who: 'bench', label: own[i] });
events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const [start, end, name] of [
  ['D0', 'D1', 'direct'],
  ['B0', 'B1', 'bridge'],
]) {
  const hops = new Map();
  let seen = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i].who !== 'bench' || events[i].label !== start) continue;
    let j = i + 1;
    while (j < events.length && !(events[j].who === 'bench' && events[j].label === end)) j++;
    if (++seen > calls / 10) {
      for (let k = i + 1; k <= j && k < events.length; k++) {
        const key = `${events[k - 1].who}:${events[k - 1].label} -> ${events[k].who}:${events[k].label}`;
        if (!hops.has(key)) hops.set(key, []);
        hops.get(key).push(Number(events[k].at - events[k - 1].at) / 1000);
      }
      if (!hops.has('whole call')) hops.set('whole call', []);
      hops.get('whole call').push(Number(events[j].at - events[i].at) / 1000);
    }
    i = j;
  }
  console.log(`${name} (${tool}), medians in µs:`);
  for (const [key, values] of hops) {
    if (values.length < calls / 4) continue; // a stray event, not a hop of every call
    console.log(`  ${median(values).toFixed(1).padStart(7)}  ${key}`);
  }
}
