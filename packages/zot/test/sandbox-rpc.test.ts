// The sandbox's state over RPC: in get_state and the state events, switched by /sandbox, saved
// with --save, and held at the project's floor.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { makeSandboxBox, type SandboxBox } from './support/sandbox.js';

let llm: FakeLlm;
let box: SandboxBox;
before(async () => {
  llm = await startFakeLlm();
  box = makeSandboxBox();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

function start(args: string[] = []): ZotRpc {
  return ZotRpc.start([...fakeLlmFlags(llm.url), ...args], {
    home: box.zotHome,
    cwd: box.project,
    env: { HOME: box.home },
  });
}

async function command(client: ZotRpc, text: string, id: string): Promise<Line[]> {
  const from = client.lines.length;
  client.send({ type: 'command', id, text });
  await client.waitFor((line) => line.type === 'command_done' && line.id === id, undefined, from);
  return client.lines.slice(from);
}

const sandboxOf = (line: Line) =>
  line.sandbox as { mode: string; status: string; network: unknown };

test('--sandbox on: the snapshot says so, and says active once the probe passed', async (t) => {
  const client = start(['--sandbox', 'on']);
  t.after(() => void client.close());
  const state = await client.request('get_state');
  assert.equal(state.data!.sandbox.mode, 'on');
  if (state.data!.sandbox.status !== 'active')
    await client.waitFor((line) => line.type === 'state' && sandboxOf(line).status === 'active');
});

test('/sandbox shows the policy; /sandbox required --save switches and keeps it; /sandbox off switches back', async (t) => {
  const config = join(box.zotHome, 'config.json');
  writeFileSync(config, JSON.stringify({ theme: 'dark', sandbox: { network: false } }));
  t.after(() => rmSync(config, { force: true }));
  const client = start();
  t.after(() => void client.close());
  const shown = await command(client, '/sandbox', 's1');
  const text = String(shown.find((line) => line.type === 'ext_display')?.text);
  assert.match(text, /^sandbox: off/);
  assert.ok(text.includes(join(box.home, '.ssh')), text);
  const from = client.lines.length;
  const required = await command(client, '/sandbox required --save', 's2');
  assert.match(
    String(required.find((line) => line.type === 'ext_display')?.text),
    /sandbox required; saved in .*config\.json: bash commands run in the sandbox/,
  );
  await client.waitFor(
    (line) => line.type === 'state' && sandboxOf(line).mode === 'required',
    undefined,
    from,
  );
  const saved = JSON.parse(readFileSync(config, 'utf8'));
  assert.deepEqual(
    saved.sandbox,
    { network: false, mode: 'required' },
    'the rest of the block is kept',
  );
  assert.equal(saved.theme, 'dark', 'and the rest of the file');
  await command(client, '/sandbox off', 's3');
  await client.waitFor(
    (line) => line.type === 'state' && sandboxOf(line).mode === 'off',
    undefined,
    from,
  );
  assert.equal(
    JSON.parse(readFileSync(config, 'utf8')).sandbox.mode,
    'required',
    'not saved without --save',
  );
  const bad = await command(client, '/sandbox sometimes', 's4');
  assert.match(
    String(bad.find((line) => line.type === 'error')?.message),
    /usage: \/sandbox \[off\|on\|required\] \[--save\]/,
  );
});

test("the project's floor: /sandbox cannot go below the mode its .zot/settings.json asks for", async (t) => {
  const settings = join(box.project, '.zot', 'settings.json');
  mkdirSync(join(box.project, '.zot'), { recursive: true });
  writeFileSync(settings, JSON.stringify({ sandbox: { mode: 'on' } }));
  t.after(() => rmSync(settings));
  const client = start();
  t.after(() => void client.close());
  const state = await client.request('get_state');
  assert.equal(state.data!.sandbox.mode, 'on');
  const refused = await command(client, '/sandbox off', 'f1');
  const error = String(refused.find((line) => line.type === 'error')?.message);
  assert.ok(error.includes(`cannot go below "on" here: ${settings} asks for it`), error);
  const raised = await command(client, '/sandbox required', 'f2');
  assert.ok(raised.some((line) => line.type === 'ext_display'));
});
