// Extension tool round trip: from `tool.execute(args)` on the host's tool object to its result
// (tool_call frame out, tool_result frame back, converted; no model), versus a raw JSON echo
// over a pipe to the same program spawned the same way (one JSON line written, the reply line
// read and parsed). Node and Python fixture extensions; calls alternate in blocks.
import { row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  commandLine,
  echoArgs,
  extensionEnv,
  makeFixture,
  RawPeer,
  startHost,
  tempRoot,
  timedToolCall,
} from '../lib/ext.mjs';

const LANGUAGES = ['node', 'python'];
const BLOCK = 50;

/** Target: the host's median call costs at most two raw pipe round trips. */
const TARGET = { maxRatio: 2 };

export async function run(options) {
  const warmup = rounds(options, 500, 100);
  const calls = rounds(options, 2000, 500);
  const root = tempRoot('ext-tool-rt');
  const env = extensionEnv();
  const rows = [];
  let host;
  const peers = [];
  try {
    const dirs = LANGUAGES.map((language) =>
      makeFixture(
        root.dir,
        `echo-${language}`,
        'well-behaved',
        { tools: [`echo_${language}`] },
        language,
      ),
    );
    host = await startHost(root.dir, dirs, { env });
    for (const [index, language] of LANGUAGES.entries()) {
      const name = `echo_${language}`;
      const peer = new RawPeer(await commandLine(dirs[index], env), env);
      peers.push(peer);
      await peer.handshake(dirs[index]);
      const args = echoArgs;
      const expected = (i) => `${name}:${JSON.stringify(args(i))}`;
      let seq = 0;
      const viaHost = timedToolCall(host, name, root.dir, name);
      const raw = async (i) => {
        const start = performance.now();
        const reply = await peer.roundTrip({
          type: 'tool_call',
          id: `r${++seq}`,
          name,
          args: args(i),
        });
        const ms = performance.now() - start;
        if (reply.type !== 'tool_result' || reply.content?.[0]?.text !== expected(i)) {
          throw new Error(`unexpected raw reply: ${JSON.stringify(reply)}`);
        }
        return ms;
      };
      await alternateBlocks(warmup, BLOCK, { raw, host: viaHost });
      const samples = await alternateBlocks(calls, BLOCK, { raw, host: viaHost });
      rows.push(
        row(`${language} tool.execute vs raw pipe echo`, samples.raw, samples.host, TARGET),
      );
    }
  } finally {
    await Promise.all(peers.map((peer) => peer.kill()));
    await host?.shutdown();
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'ext-tool-roundtrip', rows };
}
