// Diagnostic: what one request/reply to an extension costs the host, for the interception and
// tool round-trip suites. Runs `calls` sequential calls per variant (after a warm-up), in one
// block per variant, and prints per call: wall time (median, p90) and the host process's own CPU
// time (process.cpuUsage, user + system, averaged), so the host's work can be told apart from
// waiting for the pipe and the other process.
//   node bench/support/ext-roundtrip-cost.mjs [calls] [--profile]
// Variants: raw (event_intercept line by hand to one process), raw to 5 processes in turn (what
// a chain of 5 interceptors costs without any host code), intercept with 1 and 5 interceptors,
// and a tool call through tool.execute. --profile adds a CPU profile (node:inspector) of the 5
// interceptor block: self time by file or package and the hottest functions.
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import {
  commandLine,
  extensionEnv,
  makeFixture,
  RawPeer,
  startHost,
  tempRoot,
} from '../lib/ext.mjs';
import { summarize } from '../lib/common.mjs';

const args = process.argv.slice(2);
const calls = Number(args.find((arg) => !arg.startsWith('--')) ?? 5000);
const profiling = args.includes('--profile');
const INTERCEPTOR = { subscribe: { intercept: ['tool_call'] }, tools: ['echo'] };
const value = (i) => ({
  tool_id: `call_${i}`,
  tool_name: 'bash',
  tool_args: { command: `ls -la src/${i}`, timeout: 120 },
});

const root = tempRoot('rt-cost');
const env = extensionEnv();
const hosts = {};
let peer;
const peers = [];
try {
  for (const count of [1, 5]) {
    const dirs = Array.from({ length: count }, (_, i) =>
      makeFixture(join(root.dir, `h${count}`), `guard${i}`, 'well-behaved', INTERCEPTOR),
    );
    hosts[count] = await startHost(join(root.dir, `h${count}`), dirs, { env });
  }
  const rawDir = makeFixture(join(root.dir, 'raw'), 'guard-raw', 'well-behaved', INTERCEPTOR);
  peer = new RawPeer(await commandLine(rawDir, env), env);
  await peer.handshake(rawDir);
  for (let i = 0; i < 5; i++) {
    const dir = makeFixture(join(root.dir, 'raw5'), `guard-raw-${i}`, 'well-behaved', INTERCEPTOR);
    const extra = new RawPeer(await commandLine(dir, env), env);
    peers.push(extra);
    await extra.handshake(dir);
  }
  const tool = hosts[1].toolSource.find('echo');
  const controller = new AbortController();
  let seq = 0;
  const variants = {
    'raw round trip': (i) =>
      peer.roundTrip({ type: 'event_intercept', id: `r${++seq}`, event: 'tool_call', ...value(i) }),
    'raw, 5 processes in turn': async (i) => {
      for (const other of peers) {
        await other.roundTrip({
          type: 'event_intercept',
          id: `q${++seq}`,
          event: 'tool_call',
          ...value(i),
        });
      }
    },
    'intercept, 1 interceptor': (i) => hosts[1].intercept('tool_call', value(i)),
    'intercept, 5 interceptors': (i) => hosts[5].intercept('tool_call', value(i)),
    'tool.execute (1 ext)': (i) =>
      tool.execute(value(i).tool_args, {
        cwd: root.dir,
        toolCallId: `t${i}`,
        signal: controller.signal,
        onProgress: () => undefined,
      }),
  };
  const session = new Session();
  for (const [name, fn] of Object.entries(variants)) {
    for (let i = 0; i < 500; i++) await fn(i);
    const profileThis = profiling && name === 'intercept, 5 interceptors';
    if (profileThis) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 50 });
      await session.post('Profiler.start');
    }
    const samples = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      await fn(i);
      samples.push(performance.now() - start);
    }
    const cpu = process.cpuUsage(cpu0);
    const s = summarize(samples);
    const cpuPerCall = (cpu.user + cpu.system) / 1000 / calls;
    console.log(
      `${name.padEnd(26)} wall median ${s.median.toFixed(4)} ms (p90 ${s.p90.toFixed(4)}); ` +
        `host CPU ${cpuPerCall.toFixed(4)} ms/call (user ${(cpu.user / 1000 / calls).toFixed(4)}, ` +
        `sys ${(cpu.system / 1000 / calls).toFixed(4)})`,
    );
    if (profileThis) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      summarizeProfile(profile);
    }
  }
} finally {
  await peer?.kill();
  await Promise.all(peers.map((other) => other.kill()));
  await Promise.all(Object.values(hosts).map((host) => host.shutdown()));
  root.cleanup();
}

function summarizeProfile(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFile = new Map();
  const byFunction = new Map();
  const bucket = (url, fn) => {
    if (!url) return `(${fn || 'native'})`;
    const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    if (pkg) return `package ${pkg[1]}`;
    if (url.startsWith('node:'))
      return url.replace(/^node:internal\/([^/]+).*/, 'node:internal/$1');
    return url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const { url, functionName, lineNumber } = node.callFrame;
    const file = bucket(url, functionName);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
  const show = (title, map, top) => {
    console.log(`  ${title}`);
    for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${key}`);
    }
  };
  show('self time by file or package (5-interceptor block):', byFile, 14);
  show('hottest functions:', byFunction, 18);
}
