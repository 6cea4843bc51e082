import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  extTimeouts,
  FAST_TIMEOUTS,
  makeExtension,
  pidAlive,
  processesMatching,
  expectNoLeftovers,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { collect, jsonLines, makeSandbox, runZot, startZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const FLAGS = () => [...fakeLlmFlags(llm.url), '--no-session'];

function setup() {
  const box = makeSandbox();
  const root = join(box.home, 'extensions');
  const run = (args: string[]) =>
    runZot([...args, ...FLAGS()], { home: box.home, cwd: box.project, env: FAST_TIMEOUTS });
  const log = (name: string) => readFileSync(join(box.home, 'logs', `ext-${name}.log`), 'utf8');
  return { box, root, run, log };
}

type ToolResultEvent = {
  type: string;
  id: string;
  is_error: boolean;
  extension?: string;
  content: Array<{ text?: string }>;
};
const toolResults = (stdout: string) =>
  jsonLines(stdout).filter((event) => event.type === 'tool_result') as unknown as ToolResultEvent[];

test('extension tools: results, images, bad base64, empty content, errors, a timeout and a crash mid-call', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const png =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  makeExtension(root, 'kit', 'well-behaved', {
    tools: [
      { name: 'echo', schema: { type: 'object', properties: { x: { type: 'number' } } } },
      {
        name: 'picture',
        result: {
          content: [
            { type: 'text', text: 'a dot' },
            { type: 'image', mime_type: 'image/png', data: png },
          ],
        },
      },
      {
        name: 'broken_picture',
        result: { content: [{ type: 'image', mime_type: 'image/png', data: 'not base64!!' }] },
      },
      { name: 'quiet', result: { content: [] } },
      { name: 'failing', result: { content: [{ type: 'text', text: 'nope' }], is_error: true } },
      { name: 'stuck', result: { never: true } },
    ],
  });
  makeExtension(root, 'zz-crashy', 'well-behaved', {
    tools: [{ name: 'boom', result: { crash: true } }],
  });
  const calls = [
    'echo',
    'picture',
    'broken_picture',
    'quiet',
    'failing',
    'stuck',
    'boom',
    'boom',
  ].map((name, i) => ({
    id: `c${i}`,
    name,
    args: name === 'echo' ? { x: 1 } : {},
  }));
  llm.script({ toolCalls: calls }, { text: 'ok' });
  const result = await run(['--json', 'use the tools']);
  assert.equal(result.code, 0, result.stderr);
  const results = toolResults(result.stdout);
  const byId = new Map(results.map((r) => [r.id, r]));
  assert.equal(byId.get('c0')!.content[0]!.text, 'echo:{"x":1}');
  assert.equal(byId.get('c0')!.extension, 'kit');
  assert.equal(byId.get('c1')!.is_error, false);
  const imageRequest = llm.requests.at(-1)!.body.messages.at(-1).content[1].content;
  assert.equal(imageRequest[1].type, 'image');
  assert.equal(byId.get('c2')!.is_error, true);
  assert.match(
    byId.get('c2')!.content[0]!.text!,
    /extension kit returned an image with invalid base64 data from tool broken_picture/,
  );
  assert.equal(byId.get('c3')!.content[0]!.text, '(no output)');
  assert.equal(byId.get('c4')!.is_error, true);
  assert.match(
    byId.get('c5')!.content[0]!.text!,
    new RegExp(
      `extension kit did not answer tool call stuck within ${extTimeouts().toolMs} ms; see .*ext-kit\\.log`,
    ),
  );
  assert.match(
    byId.get('c6')!.content[0]!.text!,
    /extension zz-crashy is not running \(exited with status 7\); see .*ext-zz-crashy\.log/,
  );
  // The next call comes while it is being restarted (design D25): an error at once.
  assert.equal(byId.get('c7')!.content[0]!.text!, 'extension zz-crashy is restarting, try again');
  assert.equal(byId.get('c7')!.extension, 'zz-crashy');
  // A crash fails the pending call at once: its error is "not running", not the timeout.
  const crash = jsonLines(result.stdout).find((e) => e.type === 'ext_error');
  assert.match(String(crash?.message), /extension zz-crashy exited with status 7/);
  assert.match(
    log('kit'),
    new RegExp(`tool stuck: no tool_result within ${extTimeouts().toolMs} ms`),
  );
});

test('commands: case-insensitive, registered spelling and trimmed args; conflicts and built-ins win', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'a.jsonl');
  makeExtension(root, 'a-first', 'well-behaved', {
    record,
    commands: ['Deploy'],
    tools: ['read', 'shared_tool'],
  });
  makeExtension(root, 'b-second', 'well-behaved', {
    commands: [
      'deploy',
      'help',
      { name: 'other', response: { action: 'insert', insert: 'inserted text' } },
    ],
    tools: ['shared_tool'],
  });
  const deploy = await run(['-p', '/DEPLOY    to   prod   ']);
  assert.equal(deploy.code, 0, deploy.stderr);
  assert.equal(deploy.stdout, 'ran Deploy to   prod\n');
  const invoked = readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((f) => f.type === 'command_invoked');
  assert.deepEqual([invoked.name, invoked.args], ['Deploy', 'to   prod']);
  assert.match(
    log('b-second'),
    /command \/deploy conflicts with \/Deploy of extension a-first, which loaded first/,
  );
  assert.match(log('b-second'), /command \/help is shadowed by the built-in \/help/);
  assert.match(log('a-first'), /tool read is shadowed by the built-in tool read/);
  assert.match(log('b-second'), /tool shared_tool conflicts with the tool of extension a-first/);
  const insert = await run(['--json', '/other']);
  assert.deepEqual(
    jsonLines(insert.stdout).find((e) => e.type === 'ext_insert'),
    { type: 'ext_insert', extension: 'b-second', text: 'inserted text' },
  );
  const help = await run(['-p', '/help']);
  assert.match(help.stdout, /\/Deploy/);
  assert.match(help.stdout, /\/other .*\[b-second\]/);
});

test('command_response error and a command that never answers', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'cmds', 'well-behaved', {
    commands: [
      {
        name: 'fails',
        response: { action: 'prompt', prompt: 'never sent', error: 'deploy key missing' },
      },
      { name: 'hangs', response: { never: true } },
      {
        name: 'panel',
        response: { action: 'open_panel', open_panel: { id: 'p1', title: 'T', lines: ['a'] } },
      },
    ],
  });
  const requestsBefore = llm.requests.length;
  const fails = await run(['-p', '/fails']);
  assert.equal(fails.code, 1);
  assert.match(fails.stderr, /\/fails \(cmds\): deploy key missing/);
  assert.equal(llm.requests.length, requestsBefore, 'the action is not applied');
  const hangs = await run(['--json', '/hangs']);
  assert.equal(hangs.code, 1);
  assert.match(
    hangs.stderr,
    new RegExp(
      `/hangs: extension cmds did not answer within ${extTimeouts().commandMs} ms; see .*ext-cmds\\.log`,
    ),
  );
  const panelPrint = await run(['-p', '/panel']);
  assert.equal(panelPrint.code, 1);
  assert.match(panelPrint.stderr, /panels need the TUI or RPC mode/);
  const panelJson = await run(['--json', '/panel']);
  assert.deepEqual(
    jsonLines(panelJson.stdout).find((e) => e.type === 'ext_panel_open'),
    {
      type: 'ext_panel_open',
      extension: 'cmds',
      panel: { id: 'p1', title: 'T', lines: ['a'] },
    },
  );
});

test('deferred tools appear only after activate_tools; late registrations appear from the next request', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'loader', 'well-behaved', {
    tools: [
      {
        name: 'load_weather',
        result: {
          content: [{ type: 'text', text: 'loaded' }],
          activate_tools: ['weather', 'no_such_tool'],
        },
      },
      { name: 'weather', deferred: true },
    ],
  });
  llm.script(
    { toolCalls: [{ id: 'w0', name: 'weather', args: {} }] },
    { toolCalls: [{ id: 'l1', name: 'load_weather', args: {} }] },
    { toolCalls: [{ id: 'w1', name: 'weather', args: { city: 'Berlin' } }] },
    { text: 'sunny' },
  );
  const result = await run(['--json', 'weather?']);
  assert.equal(result.code, 0, result.stderr);
  const offered = llm.requests
    .slice(-4)
    .map((r) => r.body.tools.map((tool: { name: string }) => tool.name));
  assert.ok(!offered[0].includes('weather') && offered[0].includes('load_weather'));
  assert.ok(!offered[1].includes('weather'));
  assert.ok(offered[2].includes('weather'), 'offered from the request after activation');
  const results = new Map(toolResults(result.stdout).map((r) => [r.id, r]));
  assert.match(results.get('w0')!.content[0]!.text!, /unknown tool "weather"/);
  assert.equal(results.get('w1')!.content[0]!.text, 'weather:{"city":"Berlin"}');
  assert.match(log('loader'), /activate_tools: unknown tool "no_such_tool" ignored/);

  // The late tool must register after zot's first request and before its second: the first
  // reply signals the extension and waits for its mark before it streams. The tool call in that
  // reply then reaches the extension after its registrations are in the pipe, so the second
  // request is built knowing the late tool; no timer decides the order.
  const pidFile = join(box.home, 'late.pid');
  const markFile = join(box.home, 'late.mark');
  makeExtension(root, 'late', 'late-register', {
    tools: ['early'],
    on_signal: true,
    pid_log: pidFile,
    late_mark: markFile,
  });
  llm.script(
    {
      before: async () => {
        process.kill(Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]), 'SIGUSR1');
        await waitForFile(markFile);
      },
      text: ['a', 'b', 'c'],
      toolCalls: [{ id: 'e1', name: 'early', args: {} }],
    },
    { toolCalls: [{ id: 'l1', name: 'late_tool', args: {} }] },
    { text: 'y' },
  );
  const late = await run(['--json', 'one']);
  assert.equal(late.code, 0, late.stderr);
  const [firstTools, secondTools] = llm.requests
    .slice(-3)
    .map((request) => request.body.tools.map((tool: { name: string }) => tool.name));
  assert.ok(firstTools.includes('early') && !firstTools.includes('late_tool'));
  assert.ok(
    secondTools.includes('late_tool'),
    'registered after ready, offered from the next request',
  );
  const lateResult = toolResults(late.stdout).find((r) => r.id === 'l1')!;
  assert.equal(lateResult.is_error, false);
});

test('notes: notify/display/clear_notes surface as events (JSON) and [name] lines (print); submit is an event, never run', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'noter', 'well-behaved', {
    commands: [
      {
        name: 'note',
        response: {
          action: 'noop',
          emit: [
            { type: 'notify', level: 'warn', message: 'careful' },
            { type: 'display', text: 'shown' },
            { type: 'clear_notes' },
            { type: 'submit', text: 'please run' },
          ],
        },
      },
    ],
  });
  const requestsBefore = llm.requests.length;
  const json = await run(['--json', '/note']);
  assert.equal(json.code, 0, json.stderr);
  const events = jsonLines(json.stdout).filter((e) => e.type.startsWith('ext_'));
  assert.deepEqual(events, [
    { type: 'ext_notify', extension: 'noter', level: 'warn', message: 'careful' },
    { type: 'ext_display', extension: 'noter', text: 'shown' },
    { type: 'ext_clear_notes', extension: 'noter' },
    { type: 'ext_submit', extension: 'noter', text: 'please run' },
  ]);
  // zot never runs a submitted prompt itself outside the TUI (design D21).
  assert.equal(llm.requests.length, requestsBefore);
  const print = await run(['-p', '/note']);
  assert.equal(print.stdout, '');
  assert.match(print.stderr, /^\[noter\] careful$/m);
  assert.match(print.stderr, /^\[noter\] shown$/m);
  assert.match(log('noter'), /submit: 10 characters, passed to the front end/);
  assert.doesNotMatch(print.stdout + print.stderr, /please run/);
});

test('shutdown: an extension ignoring SIGTERM and a grandchild in its group are killed', async (t) => {
  const { box, root, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidFile = join(box.project, 'child.pid');
  makeExtension(root, 'stubborn', 'ignore-sigterm', { commands: ['x'] });
  makeExtension(root, 'parent', 'spawn-child', { pid_file: pidFile });
  const result = await run(['-p', '/x']);
  assert.equal(result.code, 0, result.stderr);
  const grandchild = Number(readFileSync(pidFile, 'utf8'));
  assert.equal(pidAlive(grandchild), false, 'the grandchild is gone');
  assert.deepEqual(processesMatching(root), []);
});

test('SIGTERM of the host (idle RPC) and SIGINT during a prompt leave no extension processes', async (t) => {
  const { box, root } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidFile = join(box.project, 'child.pid');
  makeExtension(root, 'parent', 'spawn-child', { pid_file: pidFile });
  makeExtension(root, 'stubborn', 'ignore-sigterm');
  const rpc = startZot(['rpc', ...FLAGS()], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  rpc.stdin.end = () => rpc.stdin; // keep stdin open: the host must exit on the signal alone
  const rpcDone = collect(rpc, undefined, hangGuard(15_000));
  await waitForFile(pidFile);
  rpc.kill('SIGTERM');
  const exit = await rpcDone;
  assert.equal(exit.code, 143);
  assert.equal(pidAlive(Number(readFileSync(pidFile, 'utf8'))), false);
  assert.deepEqual(processesMatching(root), []);

  llm.script({ text: ['partial'], hang: true });
  const print = startZot(['--json', 'hang', ...FLAGS()], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  let sent = false;
  print.stdout.on('data', (chunk: Buffer) => {
    if (!sent && chunk.toString().includes('text_delta')) {
      sent = true;
      print.kill('SIGINT');
    }
  });
  const result = await collect(print, undefined, hangGuard(15_000));
  assert.equal(result.code, 130);
  assert.deepEqual(processesMatching(root), []);
});

async function waitForFile(path: string): Promise<void> {
  for (const end = Date.now() + hangGuard(5000); Date.now() < end; ) {
    try {
      if (readFileSync(path, 'utf8').trim()) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} never appeared`);
}

test('a tool whose schema is not a valid JSON Schema object is rejected and logged; the others load', async (t) => {
  const { box, root, run, log } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(root, 'schemas', 'well-behaved', {
    tools: [
      { name: 'typo', schema: { type: 'object', properties: { a: { type: 'strnig' } } } },
      { name: 'listy', schema: { type: 'array' } },
      { name: 'not_object', schema: 'string schema' },
      { name: 'fine', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      { name: 'no schema' },
    ],
  });
  llm.script({ text: 'ok' });
  const result = await run(['-p', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  const offered = llm.requests.at(-1)!.body.tools.map((tool: { name: string }) => tool.name);
  assert.ok(offered.includes('fine'));
  for (const name of ['typo', 'listy', 'not_object', 'no schema'])
    assert.ok(!offered.includes(name), name);
  const text = log('schemas');
  assert.match(
    text,
    /register_tool "typo": its schema cannot be used: \/properties\/a\/type must be equal to one of the allowed values/,
  );
  assert.match(text, /register_tool "listy": the schema must describe an object/);
  assert.match(text, /dropped a malformed line: register_tool: \/schema/);
  assert.match(text, /invalid tool name "no schema"/);
});

test('SIGHUP (a closed terminal) also shuts extensions down before zot exits', async (t) => {
  const { box, root } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const pidFile = join(box.project, 'child.pid');
  makeExtension(root, 'parent', 'spawn-child', { pid_file: pidFile });
  const rpc = startZot(['rpc', ...FLAGS()], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  rpc.stdin.end = () => rpc.stdin; // keep stdin open: the host must exit on the signal alone
  const done = collect(rpc, undefined, hangGuard(15_000));
  await waitForFile(pidFile);
  rpc.kill('SIGHUP');
  assert.equal((await done).code, 129);
  assert.equal(pidAlive(Number(readFileSync(pidFile, 'utf8'))), false);
});
