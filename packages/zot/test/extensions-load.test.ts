import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  EXAMPLES,
  extTimeouts,
  FAST_TIMEOUTS,
  makeExtension,
  NODE_FIXTURE,
  processesMatching,
  expectNoLeftovers,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup() {
  const box = makeSandbox();
  const globalRoot = join(box.home, 'extensions');
  const run = (args: string[], input?: string) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: FAST_TIMEOUTS,
      ...(input !== undefined ? { input } : {}),
    });
  return { box, globalRoot, run };
}

test("the spec's Python quick start works unchanged (/hellopy prompts the model)", async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  llm.script({ text: 'Hi there!' });
  const result = await run(['-p', '/hellopy', '--ext', join(EXAMPLES, 'hello-py')]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'Hi there!\n');
  const sent = llm.requests.at(-1)!.body.messages[0].content[0].text;
  assert.equal(sent, 'Greet me very briefly in one sentence.');
});

test('the Node example: /clock displays, clock_now is a model tool with attribution', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const clock = join(EXAMPLES, 'clock');
  const display = await run(['--json', '/CLOCK utc', '--ext', clock]);
  assert.equal(display.code, 0, display.stderr);
  const shown = jsonLines(display.stdout).find((event) => event.type === 'ext_display');
  assert.equal(shown?.extension, 'clock');
  assert.match(String(shown?.text), /UTC/);

  llm.script(
    { toolCalls: [{ id: 't1', name: 'clock_now', args: { timezone: 'Europe/Berlin' } }] },
    { text: 'done' },
  );
  const tool = await run(['--json', 'what time is it in Berlin?', '--ext', clock]);
  assert.equal(tool.code, 0, tool.stderr);
  const tools = llm.requests.at(-2)!.body.tools.map((entry: { name: string }) => entry.name);
  assert.ok(tools.includes('clock_now'));
  const result = jsonLines(tool.stdout).find((event) => event.type === 'tool_result')!;
  assert.equal(result.extension, 'clock');
  assert.equal(result.is_error, false);
});

test('hello_ack carries versions, provider, model and absolute paths', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'received.jsonl');
  const dir = makeExtension(globalRoot, 'recorder', 'well-behaved', { record, commands: ['noop'] });
  const result = await run(['-p', '/noop', '--model', 'claude-haiku-4-5']);
  assert.equal(result.code, 0, result.stderr);
  const frames = readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const ack = frames.find((frame) => frame.type === 'hello_ack');
  assert.deepEqual(
    { ...ack, zot_version: typeof ack.zot_version },
    {
      type: 'hello_ack',
      protocol_version: 1,
      zot_version: 'string',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      cwd: box.project,
      extension_dir: dir,
      data_dir: dir,
    },
  );
  assert.deepEqual(
    frames.find((frame) => frame.type === 'command_invoked'),
    {
      type: 'command_invoked',
      id: frames.find((frame) => frame.type === 'command_invoked').id,
      name: 'noop',
      args: '',
    },
  );
  assert.equal(frames.at(-1).type, 'shutdown');
});

test('broken extensions are reported with name, reason and log path; the rest still work', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(globalRoot, 'a-exits', 'exit-before-hello', { status: 3 });
  makeExtension(globalRoot, 'b-chatty', 'not-hello-first');
  makeExtension(globalRoot, 'c-silent', 'silent');
  makeExtension(globalRoot, 'd-lazy', 'never-ready');
  makeExtension(globalRoot, 'e-good', 'well-behaved', { commands: ['hi'] });
  mkdirSync(join(globalRoot, 'f-badjson'));
  writeFileSync(join(globalRoot, 'f-badjson', 'extension.json'), '{"name": ');
  makeExtension(globalRoot, 'g-nameless', 'well-behaved', {}, { manifest: { name: 'Bad Name!' } });
  const result = await run(['--json', '/hi there']);
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const errors = new Map(events.filter((e) => e.type === 'ext_error').map((e) => [e.extension, e]));
  const logs = join(box.home, 'logs');
  assert.match(String(errors.get('a-exits')?.message), /exited with status 3 before sending hello/);
  assert.equal(errors.get('a-exits')?.log_path, join(logs, 'ext-a-exits.log'));
  assert.match(
    String(errors.get('b-chatty')?.message),
    /first line must be a hello frame; got a notify frame/,
  );
  assert.match(
    String(errors.get('c-silent')?.message),
    new RegExp(`no hello within ${extTimeouts().helloMs} ms`),
  );
  assert.match(
    String(errors.get('d-lazy')?.message),
    new RegExp(`no "ready" within ${extTimeouts().readyMs} ms`),
  );
  const manifestErrors = [...errors.values()].filter((e) =>
    /extension\.json/.test(String(e.message)),
  );
  assert.equal(manifestErrors.length, 2);
  assert.ok(manifestErrors.some((e) => /f-badjson\/extension\.json/.test(String(e.message))));
  assert.ok(manifestErrors.some((e) => /"name"/.test(String(e.message))));
  assert.deepEqual(
    events.find((e) => e.type === 'ext_display'),
    { type: 'ext_display', extension: 'e-good', text: 'ran hi there' },
  );
  for (const name of ['a-exits', 'b-chatty', 'c-silent', 'd-lazy']) {
    assert.match(
      result.stderr,
      new RegExp(`extension ${name} failed to load: .*\\(log: ${join(logs, `ext-${name}.log`)}\\)`),
    );
  }
  assert.match(
    readFileSync(join(logs, 'ext-a-exits.log'), 'utf8'),
    /starting a-exits[\s\S]*exited with status 3/,
  );
  assert.deepEqual(processesMatching(globalRoot), [], 'no extension process outlives the host');
});

test('garbage, unknown frames and an oversize line are dropped and logged; the extension keeps working', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(globalRoot, 'messy', 'garbage');
  const result = await run(['-p', '/ping']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'pong\n');
  const log = readFileSync(join(box.home, 'logs', 'ext-messy.log'), 'utf8');
  assert.match(log, /dropped a malformed line: invalid JSON/);
  assert.match(log, /ignored unknown frame type "frobnicate"/);
  assert.match(log, /dropped a line of \d+ bytes \(over the 32 MiB frame limit\)/);
  assert.match(log, /notify/);
});

test('enabled:false, theme-only and skill-only extensions are never spawned; --ext wins over installed copies', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'spawned.jsonl');
  makeExtension(globalRoot, 'off', 'well-behaved', { record }, { manifest: { enabled: false } });
  mkdirSync(join(globalRoot, 'theme'), { recursive: true });
  writeFileSync(join(globalRoot, 'theme', 'extension.json'), JSON.stringify({ name: 'theme' }));
  writeFileSync(join(globalRoot, 'theme', 'theme.json'), '{}');
  makeExtension(globalRoot, 'dup', 'well-behaved', {
    commands: [{ name: 'which', response: { action: 'display', display: 'installed' } }],
  });
  const work = makeExtension(join(box.project, 'wip'), 'dup', 'well-behaved', {
    commands: [{ name: 'which', response: { action: 'display', display: 'work in progress' } }],
  });
  const result = await run(['-p', '/which', '--ext', work]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'work in progress\n');
  assert.throws(() => readFileSync(record), /ENOENT/);
  const noExt = await run(['-p', '/which', '--no-ext']);
  assert.equal(noExt.code, 1);
  assert.match(noExt.stderr, /unknown command \/which/);
});

test('the Python fixture loads and answers like the Node one', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(globalRoot, 'py', 'well-behaved', { commands: ['snake'] }, { python: true });
  const result = await run(['-p', '/snake charmer']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'ran snake charmer\n');
});

test('untrusted project extensions are skipped with a warning naming zot ext trust', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const record = join(box.project, 'ran.jsonl');
  const dir = makeExtension(join(box.project, '.zot', 'extensions'), 'local', 'well-behaved', {
    record,
    commands: ['local'],
  });
  // A project extension may only run files inside its directory: give it its own copy.
  copyFileSync(NODE_FIXTURE, join(dir, 'ext-fixture.mjs'));
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  manifest.args[0] = 'ext-fixture.mjs';
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  const print = await run(['-p', '/local']);
  assert.equal(print.code, 1);
  assert.match(print.stderr, /zot: warning: .*local.*zot ext trust local/);
  assert.equal(existsSync(record), false, 'never spawned');
  const json = await run(['--json', '/local']);
  const warning = jsonLines(json.stdout).find((e) => e.type === 'ext_warning');
  assert.equal(warning?.extension, 'local');
  assert.match(json.stderr, /zot ext trust local/);
  const trusted = await runZot(['-p', '/local', ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: { ...FAST_TIMEOUTS, ZOT_TRUST_PROJECT_EXTENSIONS: '1' },
  });
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.equal(trusted.stdout, 'ran local \n');
});

test('registrations before hello_ack count; an extension that never says ready is auto-readied', async (t) => {
  const { box, globalRoot, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  makeExtension(globalRoot, 'early', 'well-behaved', { register_early: true, commands: ['early'] });
  makeExtension(globalRoot, 'quiet', 'well-behaved', { no_ready: true, commands: ['quiet'] });
  const early = await run(['-p', '/early']);
  assert.equal(early.code, 0, early.stderr);
  assert.equal(early.stdout, 'ran early \n');
  const quiet = await run(['-p', '/quiet']);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, 'ran quiet \n');
  const log = readFileSync(join(box.home, 'logs', 'ext-quiet.log'), 'utf8');
  assert.match(log, /auto-readied: registered but sent no "ready" for 500 ms/);
});

test('the quick start as written: zot ext install ./hello-py, then /hellopy', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const install = await runZot(['ext', 'install', join(EXAMPLES, 'hello-py')], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(install.code, 0, install.stderr);
  llm.script({ text: 'Hello from an installed extension.' });
  const result = await run(['-p', '/hellopy']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'Hello from an installed extension.\n');
});
