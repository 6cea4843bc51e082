// The TypeScript SDK against raw protocol scripts in the same language (Node), both run by the
// same host the same way:
// - tool round trip: `tool.execute(args)` on the host's tool object to its result, through an
//   echo tool written on @zot/sdk vs the same echo tool written as a raw JSONL loop;
// - start-up: spawn to the `ready` frame (hello read, hello_ack written), SDK vs raw script.
// Calls and spawns alternate, so both see the same machine.
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, interleave, row, rounds } from '../lib/common.mjs';
import {
  alternateBlocks,
  assertNoLeftovers,
  extensionEnv,
  makeExtension,
  startHost,
  tempRoot,
  timedToolCall,
} from '../lib/ext.mjs';

const BLOCK = 50;

const SDK_ECHO = `import { createExtension, text } from '@zot/sdk';
const ext = createExtension({ name: process.argv[2], version: '1.0.0' });
ext.tool('echo_sdk', 'echoes its arguments', { type: 'object' }, (args) =>
  text('echo:' + JSON.stringify(args)),
);
await ext.run();
`;

const RAW_ECHO = `const name = process.argv[2];
const out = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
out({ type: 'hello', name, version: '1.0.0', capabilities: ['tools'] });
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === '') continue;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      continue;
    }
    if (frame.type === 'hello_ack') {
      out({ type: 'register_tool', name: 'echo_raw', description: 'echoes its arguments', schema: { type: 'object' } });
      out({ type: 'ready' });
    } else if (frame.type === 'tool_call') {
      out({ type: 'tool_result', id: frame.id, content: [{ type: 'text', text: 'echo:' + JSON.stringify(frame.args ?? {}) }] });
    } else if (frame.type === 'shutdown') {
      process.stdout.write(JSON.stringify({ type: 'shutdown_ack' }) + '\\n', () => process.exit(0));
    }
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/** Spawns `node program name` in `cwd`; resolves with ms from spawn to the ready frame. */
function timeToReady(program, name, cwd, env) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [program, name], { cwd, env, stdio: 'pipe' });
    let buffer = '';
    let ms;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const frame = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (frame.type === 'hello')
          child.stdin.write('{"type":"hello_ack","protocol_version":1}\n');
        if (frame.type === 'ready' && ms === undefined) {
          ms = performance.now() - start;
          child.stdin.write('{"type":"shutdown"}\n');
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (ms === undefined) reject(new Error(`${program} exited ${code} before ready`));
      else resolve(ms);
    });
  });
}

export async function run(options) {
  const root = tempRoot('sdk-ts');
  const env = extensionEnv();
  const rows = [];
  let host;
  try {
    // The SDK resolves from the temporary root as it would from an extension's node_modules.
    mkdirSync(join(root.dir, 'node_modules', '@zot'), { recursive: true });
    symlinkSync(join(ROOT, 'packages', 'sdk'), join(root.dir, 'node_modules', '@zot', 'sdk'));
    writeFileSync(join(root.dir, 'package.json'), '{"type":"module","private":true}\n');
    const sdkProgram = join(root.dir, 'sdk-echo.mjs');
    const rawProgram = join(root.dir, 'raw-echo.mjs');
    writeFileSync(sdkProgram, SDK_ECHO);
    writeFileSync(rawProgram, RAW_ECHO);

    // Start-up to ready.
    const startRounds = rounds(options, 30, 8);
    await timeToReady(sdkProgram, 'warm-sdk', root.dir, env);
    await timeToReady(rawProgram, 'warm-raw', root.dir, env);
    const startup = await interleave(startRounds, {
      raw: () => timeToReady(rawProgram, 'raw', root.dir, env),
      sdk: () => timeToReady(sdkProgram, 'sdk', root.dir, env),
    });
    rows.push(
      row('node SDK ext spawn to ready vs raw script', startup.raw, startup.sdk, { maxRatio: 1.2 }),
    );

    // Tool round trip through the host.
    const dirs = [
      makeExtension(root.dir, 'echo-sdk', 'node', [sdkProgram, 'echo-sdk']),
      makeExtension(root.dir, 'echo-raw', 'node', [rawProgram, 'echo-raw']),
    ];
    host = await startHost(root.dir, dirs, { env });
    const via = (toolName) => timedToolCall(host, toolName, root.dir);
    const variants = { raw: via('echo_raw'), sdk: via('echo_sdk') };
    await alternateBlocks(rounds(options, 500, 100), BLOCK, variants);
    const calls = await alternateBlocks(rounds(options, 2000, 500), BLOCK, variants);
    rows.push(
      row('node SDK tool round trip vs raw script', calls.raw, calls.sdk, { maxRatio: 1.5 }),
    );
  } finally {
    await host?.shutdown();
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  return { name: 'sdk-ts', rows };
}
