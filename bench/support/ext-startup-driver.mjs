// One ext-startup sample, in a fresh process so that first-use costs are paid every time.
//   node ext-startup-driver.mjs <host|raw-first-line|raw-ready> <root> <dir> [dir ...]
// Everything is imported and prepared before the clock starts; the timed part is
//   host:            `await host.start()` (discovery, manifests, spawn, handshake, all ready)
//   raw-first-line:  spawn every program (same command line, cwd and env), first stdout line
//   raw-ready:       the same, then hello_ack written and stdout read up to the `ready` frame
// all N in parallel. Prints one JSON line {"ms": ...} (host mode: and "cpuMs", this process's CPU
// time during the start); exits 1 with a message on failure.
import { commandLine, createHost, RawPeer } from '../lib/ext.mjs';

const [mode, root, ...dirs] = process.argv.slice(2);
const env = process.env;
/** host mode: this process's CPU time (user + system) during `host.start()`, zot's own share. */
let cpuMs;

async function main() {
  if (mode === 'host') {
    const host = await createHost(root, dirs, { env });
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    const reports = await host.start();
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpuBefore);
    cpuMs = (used.user + used.system) / 1000;
    await host.shutdown();
    const bad = reports.filter((report) => report.status !== 'ready');
    if (bad.length > 0 || reports.length !== dirs.length) {
      throw new Error(`not ready: ${bad.map((r) => `${r.name}: ${r.status} ${r.error ?? ''}`)}`);
    }
    return ms;
  }
  if (mode !== 'raw-first-line' && mode !== 'raw-ready') throw new Error(`unknown mode ${mode}`);
  const lines = await Promise.all(dirs.map((dir) => commandLine(dir, env)));
  const start = performance.now();
  const peers = lines.map((line) => new RawPeer(line, env));
  try {
    await Promise.all(
      peers.map((peer, i) => (mode === 'raw-ready' ? peer.handshake(dirs[i]) : peer.nextLine())),
    );
    return performance.now() - start;
  } finally {
    await Promise.all(peers.map((peer) => peer.kill()));
  }
}

try {
  const ms = await main();
  process.stdout.write(JSON.stringify({ ms, ...(cpuMs !== undefined ? { cpuMs } : {}) }) + '\n');
  process.exit(0);
} catch (error) {
  process.stderr.write(`ext-startup-driver ${mode}: ${error?.stack ?? error}\n`);
  process.exit(1);
}
