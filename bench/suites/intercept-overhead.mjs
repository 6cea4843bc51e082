// Interception overhead (issue 4): the time of host.intercept('tool_call', ...) per call with 0,
// 1 and 5 fixture extensions that subscribe to tool_call interception and allow at once, versus
// the raw pipe round trip to the same program (an event_intercept line written by hand, the
// event_intercept_response line read and parsed), all in the same run, alternating in blocks.
// For information, also 5 raw round trips to 5 processes in turn (the chain without the host).
// Target: median(k) - median(0) <= k x 2 x median(raw), i.e. each interceptor adds at most two
// raw round trips at the median.
import { join } from 'node:path';
import { row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  commandLine,
  extensionEnv,
  makeFixture,
  medianOf,
  RawPeer,
  startHost,
  tempRoot,
} from '../lib/ext.mjs';

const COUNTS = [0, 1, 5];
const BLOCK = 50;
const INTERCEPTOR = { subscribe: { intercept: ['tool_call'] } };

// Version-2 interceptors (tool_result, user_prompt): one each, against a raw round trip of the
// same frame to the same program.
const V2 = {
  tool_result: (i) => ({
    tool: 'read',
    args: { path: `src/${i}.ts` },
    tool_call_id: `call_${i}`,
    content: [{ type: 'text', text: `export const n${i} = ${i};\n`.repeat(20) }],
    is_error: false,
  }),
  user_prompt: (i) => ({ text: `explain src/${i}.ts in one paragraph`, source: 'user' }),
};
const v2Interceptor = (event) => ({
  subscribe: { intercept: [event] },
  hello_extra: { protocol_version: 2 },
});

const value = (i) => ({
  tool_id: `call_${i}`,
  tool_name: 'bash',
  tool_args: { command: `ls -la src/${i}`, timeout: 120 },
});

export async function run(options) {
  const warmup = rounds(options, 500, 100);
  const calls = rounds(options, 3000, 800);
  const root = tempRoot('intercept');
  const env = extensionEnv();
  const hosts = {};
  let peer;
  const chain = [];
  let seq = 0;
  const rows = [];
  try {
    // 0 interceptors: one running extension that does not subscribe, so the chain is walked.
    for (const count of COUNTS) {
      const dirs =
        count === 0
          ? [makeFixture(join(root.dir, 'h0'), 'plain', 'well-behaved')]
          : Array.from({ length: count }, (_, i) =>
              makeFixture(join(root.dir, `h${count}`), `guard${i}`, 'well-behaved', INTERCEPTOR),
            );
      hosts[count] = await startHost(join(root.dir, `h${count}`), dirs, { env });
      const active = hosts[count].running.filter((e) => e.intercepts.has('tool_call')).length;
      if (active !== count) throw new Error(`host ${count}: ${active} interceptors subscribed`);
    }
    for (const event of Object.keys(V2)) {
      const dir = makeFixture(join(root.dir, event), `${event}-guard`, 'well-behaved', {
        ...v2Interceptor(event),
      });
      hosts[event] = await startHost(join(root.dir, event), [dir], { env });
      if (!hosts[event].running.some((e) => e.intercepts.has(event)))
        throw new Error(`host ${event}: the interceptor did not subscribe`);
    }
    const rawDir = makeFixture(join(root.dir, 'raw'), 'guard-raw', 'well-behaved', INTERCEPTOR);
    peer = new RawPeer(await commandLine(rawDir, env), env);
    await peer.handshake(rawDir);
    // For information: one raw round trip to each of 5 processes in turn, which is what a chain
    // of 5 interceptors costs the operating system alone (5 different processes to wake).
    for (let i = 0; i < 5; i++) {
      const dir = makeFixture(
        join(root.dir, 'raw5'),
        `guard-raw-${i}`,
        'well-behaved',
        INTERCEPTOR,
      );
      const other = new RawPeer(await commandLine(dir, env), env);
      chain.push(other);
      await other.handshake(dir);
    }
    const rawFrame = (i) => ({
      type: 'event_intercept',
      id: `r${++seq}`,
      event: 'tool_call',
      ...value(i),
    });

    const variants = {
      raw: async (i) => {
        const start = performance.now();
        const reply = await peer.roundTrip(rawFrame(i));
        const ms = performance.now() - start;
        if (reply.type !== 'event_intercept_response' || reply.block) {
          throw new Error(`unexpected raw reply: ${JSON.stringify(reply)}`);
        }
        return ms;
      },
      raw5: async (i) => {
        const start = performance.now();
        for (const other of chain) {
          const reply = await other.roundTrip(rawFrame(i));
          if (reply.type !== 'event_intercept_response') throw new Error('unexpected raw reply');
        }
        return performance.now() - start;
      },
    };
    for (const [event, fields] of Object.entries(V2)) {
      variants[`raw_${event}`] = async (i) => {
        const start = performance.now();
        const reply = await peer.roundTrip({
          type: 'event_intercept',
          id: `r${++seq}`,
          event,
          ...fields(i),
        });
        if (reply.type !== 'event_intercept_response') throw new Error('unexpected raw reply');
        return performance.now() - start;
      };
      variants[`v2_${event}`] = async (i) => {
        const start = performance.now();
        const result = await hosts[event].intercept(event, fields(i));
        const ms = performance.now() - start;
        if (result.blocked) throw new Error(`unexpected block: ${JSON.stringify(result)}`);
        return ms;
      };
    }
    for (const count of COUNTS) {
      variants[`i${count}`] = async (i) => {
        const start = performance.now();
        const result = await hosts[count].intercept('tool_call', value(i));
        const ms = performance.now() - start;
        if (result.blocked || result.value.tool_args.command !== `ls -la src/${i}`) {
          throw new Error(`unexpected intercept result: ${JSON.stringify(result)}`);
        }
        return ms;
      };
    }
    await alternateBlocks(warmup, BLOCK, variants);
    const samples = await alternateBlocks(calls, BLOCK, variants);

    const raw = medianOf(samples.raw);
    const zero = medianOf(samples.i0);
    rows.push({
      ...row('0 interceptors: intercept() vs raw round trip', samples.raw, samples.i0, {
        maxMs: Infinity,
      }),
      target: 'none (reference for k > 0)',
      pass: null,
    });
    for (const count of COUNTS.filter((c) => c > 0)) {
      const added = (medianOf(samples[`i${count}`]) - zero) / count;
      const result = row(
        `${count} interceptor${count === 1 ? '' : 's'}: intercept() vs raw round trip`,
        samples.raw,
        samples[`i${count}`],
        { maxMs: Infinity },
      );
      rows.push({
        ...result,
        target: `added/k = ${(added / raw).toFixed(2)}x raw <= 2x`,
        pass: added <= 2 * raw,
        addedPerInterceptor: Math.round(added * 1e4) / 1e4,
        addedRatio: Math.round((added / raw) * 1000) / 1000,
        note:
          `${count} interceptor(s): +${added.toFixed(4)} ms per interceptor over 0 ` +
          `(${zero.toFixed(4)} ms) = ${(added / raw).toFixed(2)}x the raw round trip ` +
          `(${raw.toFixed(4)} ms); target <= 2x` +
          (count === 5
            ? `; for reference, raw round trips to 5 processes in turn: ` +
              `${medianOf(samples.raw5).toFixed(4)} ms = ` +
              `${(medianOf(samples.raw5) / 5).toFixed(4)} ms per hop ` +
              `(${(medianOf(samples.raw5) / 5 / raw).toFixed(2)}x one raw round trip), so the ` +
              `host's own share is ` +
              `${((medianOf(samples.i5) - medianOf(samples.raw5)) / 5).toFixed(4)} ms per interceptor`
            : ''),
      });
    }
    for (const event of Object.keys(V2)) {
      const rawEvent = medianOf(samples[`raw_${event}`]);
      const added = medianOf(samples[`v2_${event}`]) - zero;
      rows.push({
        ...row(
          `1 ${event} interceptor: intercept() vs raw round trip`,
          samples[`raw_${event}`],
          samples[`v2_${event}`],
          { maxMs: Infinity },
        ),
        target: `added = ${(added / rawEvent).toFixed(2)}x raw <= 2x`,
        pass: added <= 2 * rawEvent,
        addedPerInterceptor: Math.round(added * 1e4) / 1e4,
        addedRatio: Math.round((added / rawEvent) * 1000) / 1000,
        note:
          `${event}: +${added.toFixed(4)} ms over 0 interceptors (${zero.toFixed(4)} ms) = ` +
          `${(added / rawEvent).toFixed(2)}x the raw round trip of the same frame ` +
          `(${rawEvent.toFixed(4)} ms); target <= 2x`,
      });
    }
    // The same five hops without the host: what the machine itself charges for a chain of
    // processes. The target is per raw round trip to one process (above); this row
    // shows how much of the 5-interceptor figure is the host's own.
    rows.push({
      ...row('5 interceptors vs raw round trips to 5 processes in turn', samples.raw5, samples.i5, {
        maxMs: Infinity,
      }),
      target: 'ratio <= 1.2 (host share of a raw chain)',
      pass: medianOf(samples.i5) <= 1.2 * medianOf(samples.raw5),
    });
  } finally {
    await peer?.kill();
    await Promise.all(chain.map((other) => other.kill()));
    await Promise.all(Object.values(hosts).map((host) => host.shutdown()));
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'intercept-overhead', rows };
}
