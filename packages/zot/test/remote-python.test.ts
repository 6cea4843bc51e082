// A Python extension served over WebSocket with the Python SDK (standard library only): the real
// zot host connects to it on 127.0.0.1 and the model calls its tool.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { FAST_TIMEOUTS } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { startPythonServer } from './support/python-server.js';
import { ZotRpc } from './support/rpc-client.js';
import { makeSandbox } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const PY_ECHO = `
import os
from zot_sdk import Extension, text

ext = Extension("pyecho", "1.0.0")

@ext.tool("pyecho", "echoes", {"type": "object", "properties": {"s": {"type": "string"}}})
def echo(args, call):
    call.progress("working")
    return text("py:%s" % args.get("s"))

listening = ext.listen(port=0, token=os.environ["SERVER_TOKEN"])
print("LISTENING " + listening.url + "pyecho", flush=True)
listening.wait()
`;

test('zot calls a Python extension served over ws:// with a token; the token shows nowhere', async (t) => {
  const box = makeSandbox();
  const server = await startPythonServer(box.project, 'py', PY_ECHO, {
    SERVER_TOKEN: 'py-tok-51c9e-secret',
  });
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session', '--ext-url', server.url], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ZOT_EXT_TOKEN: 'py-tok-51c9e-secret' },
  });
  t.after(async () => {
    await client.close();
    await server.close();
    box.cleanup();
  });
  llm.script(
    { toolCalls: [{ id: 'p1', name: 'pyecho', args: { s: 'from python' } }] },
    { text: 'done' },
  );
  await client.request('prompt', { message: 'echo it' });
  const result = await client.waitFor((line) => line.type === 'tool_result' && line.id === 'p1');
  assert.equal(result.is_error, false, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /py:from python/);
  await client.waitFor((line) => line.type === 'done');
  const log = readFileSync(join(box.home, 'logs', 'ext-pyecho.log'), 'utf8');
  assert.match(log, /connected to ws:\/\/127\.0\.0\.1:\d+\/pyecho/);
  assert.doesNotMatch(log + JSON.stringify(client.lines), /py-tok-51c9e-secret/);
});
