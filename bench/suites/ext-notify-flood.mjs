// Notify flood: one extension (the fixture's `flood` scenario) writes N notify frames as fast
// as the pipe takes them. Every variant is timed from writing the /flood command to the last
// frame. Subject: the host, to the last `ext_notify` delivered to a host.subscribe() listener
// (public API only). Baseline: the same program spawned raw, its stdout split on LF and every
// line JSON.parsed, the least a consumer does to use a frame. For information, the same raw
// child with lines only counted (the pipe's and the extension's own speed).
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
// Issue 14: the host parses, validates and delivers at least 500k frames/s (the ratio to the
// raw split is reported beside it). As a bound on the subject's median time for FRAMES:
const MIN_FRAMES_PER_SECOND = 500_000;
const TARGET = { maxMs: (FRAMES / MIN_FRAMES_PER_SECOND) * 1000 };

async function floodViaHost(host, expectedName) {
  let count = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const unsubscribe = host.subscribe((event) => {
    if (event.type !== 'ext_notify' || event.extension !== expectedName) return;
    count++;
    if (event.message === 'flood done') done(performance.now());
  });
  try {
    const start = performance.now();
    const outcome = await host.runCommand('flood', String(FRAMES));
    if (outcome.kind !== 'response') throw new Error(`/flood failed: ${outcome.message}`);
    const end = await finished;
    if (count !== FRAMES + 1) throw new Error(`host delivered ${count} of ${FRAMES + 1} frames`);
    return end - start;
  } finally {
    unsubscribe();
  }
}

/**
 * Raw: command_invoked written by hand; lines read until response + N + "done", each one
 * JSON.parsed when `parse` (and the notes checked), else only counted.
 */
function floodRaw(peer, seq, parse) {
  const stdout = peer.child.stdout;
  const expected = FRAMES + 2;
  return new Promise((resolve, reject) => {
    let lines = 0;
    let notes = 0;
    let rest = '';
    // The peer's own line handler is paused for the duration.
    const listeners = stdout.listeners('data');
    stdout.removeAllListeners('data');
    const restore = () => {
      stdout.removeListener('data', onData);
      for (const listener of listeners) stdout.on('data', listener);
    };
    const onData = (chunk) => {
      if (parse) {
        const text = rest + chunk;
        let from = 0;
        for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
          if (JSON.parse(text.slice(from, at)).type === 'notify') notes++;
          lines++;
          from = at + 1;
        }
        rest = text.slice(from);
      } else {
        for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', at + 1)) lines++;
      }
      if (lines >= expected) {
        const end = performance.now();
        restore();
        if (lines !== expected) reject(new Error(`raw read ${lines} lines, ${expected} expected`));
        else if (parse && notes !== FRAMES + 1) reject(new Error(`raw parsed ${notes} notes`));
        else resolve(end - start);
      }
    };
    stdout.on('data', onData);
    const start = performance.now();
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
      count: () => floodRaw(peer, ++seq, false),
      parse: () => floodRaw(peer, ++seq, true),
      host: () => floodViaHost(host, name),
    };
    for (const fn of Object.values(fns)) await fn(); // warm-up
    const samples = await interleave(rounds(options, 5, 2), fns);
    const perSecond = (key) => fps(medianOf(samples[key])).toLocaleString('en');
    rows.push({
      ...row(`${FRAMES} notify frames, 1 ext (ms)`, samples.parse, samples.host, TARGET, {
        framesPerSecond: {
          host: fps(medianOf(samples.host)),
          parse: fps(medianOf(samples.parse)),
          count: fps(medianOf(samples.count)),
        },
        note:
          `${FRAMES} frames: host ${perSecond('host')} frames/s (parsed, validated, ext_notify ` +
          `delivered); raw ${perSecond('parse')} frames/s (LF-split, JSON.parse); raw ` +
          `${perSecond('count')} frames/s (LF-split and counted only)`,
      }),
      target: `>= ${MIN_FRAMES_PER_SECOND.toLocaleString('en')} frames/s`,
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
