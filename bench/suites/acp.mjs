// ACP mode: session/prompt to the first agent_message_chunk of a long-lived `zot acp`, versus
// a `prompt` to the first text_delta of a long-lived `zot rpc`, against the same fake server;
// and spawn -> initialize + session/new answered (ready), with and without an extension.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, ROOT, row, rounds, ZOT_MAIN } from '../lib/common.mjs';

const TARGET = { maxRatio: 1.2 };
const REPLY = { text: ['Hello', ' from', ' the', ' fake', ' model.'] };
const FAKE = join(ROOT, 'packages/zot/dist/test/support/fake-llm.js');
const HELLO_EXT = join(ROOT, 'examples/extensions/hello');

/** A zot child speaking one JSON object a line; `until(match)` resolves with the first match. */
function lineChild(args, env, cwd) {
  const start = performance.now();
  const child = spawn(process.execPath, [ZOT_MAIN, ...args], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buffer = '';
  let stderr = '';
  const waiters = new Set();
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    const now = performance.now();
    for (const line of lines) {
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(message)) {
          waiters.delete(waiter);
          waiter.resolve(now);
        }
      }
    }
  });
  return {
    start,
    send: (value) => child.stdin.write(`${JSON.stringify(value)}\n`),
    until: (match) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in time\n${stderr}`)), 30_000);
        waiters.add({ match, resolve: (t) => (clearTimeout(timer), resolve(t)) });
      }),
    close: () =>
      new Promise((resolve) => {
        child.on('close', resolve);
        child.stdin.end();
      }),
  };
}

/** spawn -> initialize and session/new answered; the process is closed afterwards. */
async function acpReady(args, env, cwd) {
  const acp = lineChild(['acp', ...args], env, cwd);
  acp.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
  await acp.until((m) => m.id === 1);
  acp.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'session/new',
    params: { cwd, mcpServers: [] },
  });
  const ready = await acp.until((m) => m.id === 2);
  await acp.close();
  return ready - acp.start;
}

/** spawn -> the answer to RPC's first request (get_state), the same runtime set up. */
async function rpcReady(args, env, cwd) {
  const rpc = lineChild(['rpc', ...args], env, cwd);
  rpc.send({ id: 'g', type: 'get_state' });
  const ready = await rpc.until((m) => m.type === 'response' && m.id === 'g');
  await rpc.close();
  return ready - rpc.start;
}

export async function run(options) {
  const { startFakeLlm } = await import(FAKE);
  const fake = await startFakeLlm();
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-acp-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  const env = { ...process.env, ZOT_HOME: home };
  const flags = ['--provider', 'anthropic', '--base-url', fake.url, '--api-key', 'k'];
  // Neither records a session: RPC does not by default, ACP does unless told.
  const acp = lineChild(['acp', '--no-session', ...flags], env, cwd);
  const rpc = lineChild(['rpc', '--no-session', ...flags], env, cwd);
  try {
    acp.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
    await acp.until((m) => m.id === 1);
    acp.send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd, mcpServers: [] } });
    let sessionId;
    await acp.until((m) => m.id === 2 && (sessionId = m.result.sessionId) !== undefined);
    let id = 10;
    const fns = {
      baseline: async () => {
        fake.script(REPLY);
        const rid = `p${id++}`;
        const sent = performance.now();
        const first = rpc.until((m) => m.type === 'text_delta');
        const done = rpc.until((m) => m.type === 'done' && m.id === rid);
        rpc.send({ id: rid, type: 'prompt', message: 'hi' });
        const at = await first;
        await done;
        return at - sent;
      },
      subject: async () => {
        fake.script(REPLY);
        const rid = id++;
        const sent = performance.now();
        const first = acp.until((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk');
        const done = acp.until((m) => m.id === rid);
        acp.send({
          jsonrpc: '2.0',
          id: rid,
          method: 'session/prompt',
          params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] },
        });
        const at = await first;
        await done;
        return at - sent;
      },
    };
    await interleave(rounds(options, 3, 1), fns);
    const samples = await interleave(rounds(options, 30, 8), fns);

    const readyFns = {
      baseline: () => rpcReady(['--no-ext', ...flags], env, cwd),
      subject: () => acpReady(['--no-ext', ...flags], env, cwd),
    };
    const ready = await interleave(rounds(options, 8, 3), readyFns);
    const extFns = {
      baseline: () => rpcReady(['--ext', HELLO_EXT, ...flags], env, cwd),
      subject: () => acpReady(['--ext', HELLO_EXT, ...flags], env, cwd),
    };
    const withExt = await interleave(rounds(options, 8, 3), extFns);
    const info = (r) => ({ ...r, target: 'report only', pass: null });
    return {
      name: 'acp',
      rows: [
        row(
          'session/prompt -> first agent_message_chunk (acp vs rpc text_delta)',
          samples.baseline,
          samples.subject,
          TARGET,
        ),
        info(
          row(
            'spawn -> initialize + session/new (acp vs rpc first response), no extensions',
            ready.baseline,
            ready.subject,
            TARGET,
          ),
        ),
        info(
          row(
            'spawn -> initialize + session/new (acp vs rpc), the hello extension loaded',
            withExt.baseline,
            withExt.subject,
            TARGET,
          ),
        ),
      ],
    };
  } finally {
    await Promise.allSettled([acp.close(), rpc.close()]);
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
