// Cancel delivery: a tool call in flight is aborted on the host (what Esc, RPC abort, a timeout
// or shutdown do), and the extension's handler learns it from its SDK (the TS SDK's AbortSignal,
// the Python SDK's cancellation event) and says so with a notify. Subject: abort() to that
// notify delivered to a host.subscribe() listener, so one frame there (cancel) and one back.
// Baseline: a raw round trip, one line to a raw program and its reply read, in the same blocks.
// Report only: no target in the issue, the ratio says what a cancel costs over the pipes.
import { mkdirSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  commandLine,
  extensionEnv,
  makeExtension,
  makeFixture,
  RawPeer,
  startHost,
  tempRoot,
} from '../lib/ext.mjs';

const BLOCK = 20;

const TS_WAITER = `import { createExtension } from '@zot/sdk';
const ext = createExtension({ name: 'ts-waiter', version: '1.0.0' });
ext.tool('wait_ts', 'waits for its cancel', { type: 'object' }, (_args, call) =>
  new Promise((resolve) => {
    call.signal.addEventListener('abort', () => {
      ext.notify('info', 'cancelled');
      resolve('cancelled');
    });
    call.progress('started');
  }),
);
await ext.run();
`;

const PY_WAITER = `from zot_sdk import Extension
ext = Extension("py-waiter", "1.0.0")

@ext.tool("wait_py", "waits for its cancel", {"type": "object"})
def wait_py(args, call):
    call.progress("started")
    call.cancelled.wait(60)
    ext.notify("cancelled")
    return "cancelled"

ext.run()
`;

export async function run(options) {
  const root = tempRoot('cancel');
  const env = extensionEnv();
  const rows = [];
  let host;
  let peer;
  try {
    mkdirSync(join(root.dir, 'node_modules', '@zot'), { recursive: true });
    symlinkSync(join(ROOT, 'packages', 'sdk'), join(root.dir, 'node_modules', '@zot', 'sdk'));
    writeFileSync(join(root.dir, 'package.json'), '{"type":"module","private":true}\n');
    writeFileSync(join(root.dir, 'ts-waiter.mjs'), TS_WAITER);
    const pyDir = join(root.dir, 'py');
    mkdirSync(pyDir);
    cpSync(join(ROOT, 'sdk-python', 'zot_sdk'), join(pyDir, 'zot_sdk'), {
      recursive: true,
      filter: (path) => !path.includes('__pycache__'),
    });
    writeFileSync(join(pyDir, 'main.py'), PY_WAITER);
    const dirs = [
      makeExtension(root.dir, 'ts-waiter', 'node', [join(root.dir, 'ts-waiter.mjs')]),
      makeExtension(root.dir, 'py-waiter', 'python3', [join(pyDir, 'main.py')]),
    ];
    host = await startHost(root.dir, dirs, { env });
    const rawDir = makeFixture(join(root.dir, 'raw'), 'raw-echo', 'well-behaved', {
      tools: ['echo'],
    });
    peer = new RawPeer(await commandLine(rawDir, env), env);
    await peer.handshake(rawDir);

    let seq = 0;
    const cancelVia = (toolName, extension) => {
      const tool = host.toolSource.find(toolName);
      if (!tool) throw new Error(`tool ${toolName} not registered`);
      return async () => {
        const controller = new AbortController();
        let started;
        const running = new Promise((resolve) => (started = resolve));
        let notified;
        const cancelled = new Promise((resolve) => (notified = resolve));
        const unsubscribe = host.subscribe((event) => {
          if (event.type === 'ext_notify' && event.extension === extension) notified();
        });
        const call = tool.execute(
          {},
          {
            cwd: root.dir,
            toolCallId: `call_${++seq}`,
            signal: controller.signal,
            onProgress: () => started(),
          },
        );
        await running;
        const start = performance.now();
        controller.abort();
        await cancelled;
        const ms = performance.now() - start;
        unsubscribe();
        await call;
        return ms;
      };
    };
    const raw = async () => {
      const start = performance.now();
      const reply = await peer.roundTrip({ type: 'tool_call', id: `r${++seq}`, name: 'echo' });
      const ms = performance.now() - start;
      if (reply.type !== 'tool_result')
        throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
      return ms;
    };
    const variants = {
      raw,
      ts: cancelVia('wait_ts', 'ts-waiter'),
      py: cancelVia('wait_py', 'py-waiter'),
    };
    await alternateBlocks(rounds(options, 40, 10), BLOCK, variants);
    const samples = await alternateBlocks(rounds(options, 200, 40), BLOCK, variants);
    rows.push(
      {
        ...row(
          'cancel: abort to the TS SDK handler (signal, notify back) vs raw round trip',
          samples.raw,
          samples.ts,
          { maxRatio: Infinity },
        ),
        target: 'none (report)',
        pass: null,
      },
      {
        ...row(
          'cancel: abort to the Python SDK handler (event, notify back) vs raw round trip',
          samples.raw,
          samples.py,
          { maxRatio: Infinity },
        ),
        target: 'none (report)',
        pass: null,
      },
    );
  } finally {
    await host?.shutdown();
    await peer?.kill();
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'cancel', rows };
}
