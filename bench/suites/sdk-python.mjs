// The Python SDK (sdk-python/zot_sdk) against raw Python protocol scripts, in the same run:
//   - tool round trip: one tool_call line written to an SDK extension, its tool_result read
//     and parsed, vs the same through a raw script (both spawned the same way, handshake done);
//   - start-up: spawn to the `ready` frame (hello read, hello_ack written, registrations and
//     ready read) for an SDK extension vs a raw script registering the same tool.
// The SDK extension runs on a copy of zot_sdk next to its script, as `zot ext new` makes it.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { interleave, ROOT, row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  extensionEnv,
  RawPeer,
  tempRoot,
} from '../lib/ext.mjs';

const BLOCK = 50;
const ROUND_TRIP_TARGET = { maxRatio: 1.5 };
const STARTUP_TARGET = { maxRatio: 1.2 };

const SCHEMA = { type: 'object', properties: { s: { type: 'string' }, n: { type: 'integer' } } };

/** The raw baseline: the protocol by hand, the way the spec's quick start does it. */
const RAW = `import json
import sys

out = sys.stdout


def send(frame):
    out.write(json.dumps(frame) + "\\n")
    out.flush()


send({"type": "hello", "name": "raw", "version": "1.0.0", "capabilities": ["tools"]})
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    frame = json.loads(line)
    kind = frame.get("type")
    if kind == "hello_ack":
        send({"type": "register_tool", "name": "echo", "description": "echoes", "schema": ${JSON.stringify(SCHEMA)}})
        send({"type": "ready"})
    elif kind == "tool_call":
        text = "echo:" + json.dumps(frame["args"], sort_keys=True)
        send({"type": "tool_result", "id": frame["id"], "content": [{"type": "text", "text": text}]})
    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        break
`;

/** The same extension on the SDK. */
const SDK = `import json

from zot_sdk import Extension, text

ext = Extension("sdk", "1.0.0")


@ext.tool("echo", "echoes", ${JSON.stringify(SCHEMA)})
def echo(args):
    return text("echo:" + json.dumps(args, sort_keys=True))


ext.run()
`;

function programs(dir) {
  const raw = join(dir, 'raw');
  mkdirSync(raw, { recursive: true });
  writeFileSync(join(raw, 'main.py'), RAW);
  const line = (cwd) => ({ command: 'python3', args: ['main.py'], cwd });
  const sdkCopy = (name) => {
    const sdk = join(dir, name);
    mkdirSync(sdk, { recursive: true });
    writeFileSync(join(sdk, 'main.py'), SDK);
    cpSync(join(ROOT, 'sdk-python', 'zot_sdk'), join(sdk, 'zot_sdk'), {
      recursive: true,
      filter: (source) => !source.includes('__pycache__'),
    });
    return line(sdk);
  };
  // sdkNoCache only ever runs with PYTHONDONTWRITEBYTECODE=1, so it never gets a __pycache__.
  return { raw: line(raw), sdk: sdkCopy('sdk'), sdkNoCache: sdkCopy('sdk-no-cache') };
}

/** Spawn to `ready`, in ms; the process is killed afterwards. */
async function startup(line, env) {
  const start = performance.now();
  const peer = new RawPeer(line, env);
  try {
    await peer.handshake(line.cwd);
    return performance.now() - start;
  } finally {
    await peer.kill();
  }
}

export async function run(options) {
  const root = tempRoot('sdk-python');
  // Installed and --ext extensions keep Python's bytecode cache (zot_sdk/__pycache__).
  const env = { ...extensionEnv(), PYTHONDONTWRITEBYTECODE: undefined };
  delete env.PYTHONDONTWRITEBYTECODE;
  // Project extensions run with PYTHONDONTWRITEBYTECODE=1 (zot sets it so that __pycache__
  // cannot change trusted content): the SDK's modules are then compiled at every start.
  const noBytecode = { ...env, PYTHONDONTWRITEBYTECODE: '1' };
  const rows = [];
  const peers = [];
  try {
    const lines = programs(root.dir);

    const startRounds = rounds(options, 30, 8);
    // Warm-up; the first SDK start writes zot_sdk/__pycache__, as a first run after install does.
    await startup(lines.raw, env);
    await startup(lines.sdk, env);
    await startup(lines.sdkNoCache, noBytecode);
    const starts = await interleave(startRounds, {
      raw: () => startup(lines.raw, env),
      sdk: () => startup(lines.sdk, env),
      rawNoBytecode: () => startup(lines.raw, noBytecode),
      sdkNoBytecode: () => startup(lines.sdkNoCache, noBytecode),
    });
    rows.push(
      row('python SDK spawn to ready vs raw script', starts.raw, starts.sdk, STARTUP_TARGET),
    );
    rows.push({
      ...row(
        'same, no bytecode cache (project extensions)',
        starts.rawNoBytecode,
        starts.sdkNoBytecode,
        STARTUP_TARGET,
      ),
      target: 'none',
      pass: null,
    });

    const raw = new RawPeer(lines.raw, env);
    const sdk = new RawPeer(lines.sdk, env);
    peers.push(raw, sdk);
    await raw.handshake(lines.raw.cwd);
    await sdk.handshake(lines.sdk.cwd);
    const args = (i) => ({ s: 'src/index.ts', n: i });
    const expected = (i) =>
      `echo:${JSON.stringify({ n: i, s: 'src/index.ts' }).replace(/,/g, ', ').replace(/:/g, ': ')}`;
    let seq = 0;
    const call = (peer) => async (i) => {
      const start = performance.now();
      const reply = await peer.roundTrip({
        type: 'tool_call',
        id: `c${++seq}`,
        name: 'echo',
        args: args(i),
      });
      const ms = performance.now() - start;
      if (reply.type !== 'tool_result' || reply.content?.[0]?.text !== expected(i)) {
        throw new Error(`unexpected reply: ${JSON.stringify(reply)}`);
      }
      return ms;
    };
    const variants = { raw: call(raw), sdk: call(sdk) };
    await alternateBlocks(rounds(options, 500, 100), BLOCK, variants);
    const calls = await alternateBlocks(rounds(options, 3000, 600), BLOCK, variants);
    rows.push(
      row('python SDK tool round trip vs raw script', calls.raw, calls.sdk, ROUND_TRIP_TARGET),
    );
  } finally {
    await Promise.all(peers.map((peer) => peer.kill()));
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'sdk-python', rows };
}
