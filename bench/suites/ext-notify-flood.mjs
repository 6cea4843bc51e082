// Notify flood: one extension (the fixture's `flood` scenario) writes N notify frames as fast
// as the pipe takes them. Subject: from the first byte the host receives after sending the
// /flood command to the last `ext_notify` event delivered to a host.subscribe() listener.
// Baseline: the same program spawned raw, its stdout split on LF and the lines counted (not
// parsed), from the first byte to the last line. Reported as ms for N frames, and frames/s.
import { interleave, row, rounds } from '../lib/common.mjs';
import {
  assertNoLeftovers,
  commandLine,
  extensionEnv,
  makeFixture,
  medianOf,
  RawPeer,
  startHost,
  tempRoot,
} from '../lib/ext.mjs';

const FRAMES = 200_000;
const MIN_FPS = 100_000;

/**
 * The stdout stream the host reads for `extension`, to time the first byte. This reaches into
 * the host's internals (RunningExtension.transport.child); when they change, the start falls
 * back to the moment the command is sent, which adds one command round trip (~0.1 ms).
 */
function hostStdout(extension) {
  return extension?.transport?.child?.stdout;
}

async function floodViaHost(host, expectedName) {
  const extension = host.running[0];
  let first;
  let fallback;
  const stdout = hostStdout(extension);
  const onData = () => {
    first ??= performance.now();
  };
  stdout?.prependListener('data', onData);
  let count = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const unsubscribe = host.subscribe((event) => {
    if (event.type !== 'ext_notify' || event.extension !== expectedName) return;
    count++;
    if (event.message === 'flood done') done(performance.now());
  });
  try {
    fallback = performance.now();
    const outcome = await host.runCommand('flood', String(FRAMES));
    if (outcome.kind !== 'response') throw new Error(`/flood failed: ${outcome.message}`);
    const end = await finished;
    if (count !== FRAMES + 1) throw new Error(`host delivered ${count} of ${FRAMES + 1} frames`);
    return end - (first ?? fallback);
  } finally {
    unsubscribe();
    stdout?.removeListener('data', onData);
  }
}

/** Raw: command_invoked written by hand; LF bytes counted until response + N + "done". */
function floodRaw(peer, seq) {
  const stdout = peer.child.stdout;
  const expected = FRAMES + 2;
  return new Promise((resolve, reject) => {
    let first;
    let lines = 0;
    // The peer's own line handler is paused for the duration: raw bytes only.
    const listeners = stdout.listeners('data');
    stdout.removeAllListeners('data');
    const restore = () => {
      stdout.removeListener('data', onData);
      for (const listener of listeners) stdout.on('data', listener);
    };
    const onData = (chunk) => {
      first ??= performance.now();
      let at = -1;
      while ((at = chunk.indexOf('\n', at + 1)) !== -1) lines++;
      if (lines >= expected) {
        const end = performance.now();
        restore();
        if (lines !== expected) reject(new Error(`raw read ${lines} lines, ${expected} expected`));
        else resolve(end - first);
      }
    };
    stdout.on('data', onData);
    peer.child.stdin.write(
      JSON.stringify({ type: 'command_invoked', id: `f${seq}`, name: 'flood', args: `${FRAMES}` }) +
        '\n',
    );
  });
}

const fps = (ms) => Math.round(FRAMES / (ms / 1000));

export async function run(options) {
  const root = tempRoot('ext-flood');
  const env = extensionEnv();
  const rows = [];
  let host;
  let peer;
  try {
    const name = 'flooder';
    const dir = makeFixture(root.dir, name, 'flood');
    host = await startHost(root.dir, [dir], { env });
    peer = new RawPeer(await commandLine(dir, env), env);
    await peer.handshake(dir);
    let seq = 0;
    const fns = {
      raw: () => floodRaw(peer, ++seq),
      host: () => floodViaHost(host, name),
    };
    await fns.raw(); // warm-up
    await fns.host();
    const samples = await interleave(rounds(options, 5, 2), fns);
    const maxMs = (FRAMES / MIN_FPS) * 1000;
    const result = row(`${FRAMES} notify frames, 1 ext (ms)`, samples.raw, samples.host, {
      maxMs,
    });
    rows.push({
      ...result,
      target: `>= ${MIN_FPS} frames/s (<= ${maxMs} ms)`,
      pass: result.subject.median <= maxMs,
      framesPerSecond: { raw: fps(medianOf(samples.raw)), host: fps(medianOf(samples.host)) },
      note:
        `${FRAMES} frames: host ${fps(medianOf(samples.host)).toLocaleString('en')} frames/s ` +
        `(parsed, validated, ext_notify delivered); raw ${fps(medianOf(samples.raw)).toLocaleString('en')} ` +
        `frames/s (LF-split and counted only)`,
    });
  } finally {
    await peer?.kill();
    await host?.shutdown();
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'ext-notify-flood', rows };
}
