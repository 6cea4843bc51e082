// The TypeScript SDK's examples against the real built zot and the fake LLM: hello (commands,
// onHello), weather (a tool, over a local HTTP stand-in for wttr.in), loader (deferred tools),
// scratchpad (TypeScript run from source), and the examples type-check against the SDK.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { EXAMPLES, expectNoLeftovers, FAST_TIMEOUTS, scopedDataDir } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/** A copy of an example outside the repository, finding the SDK through a node_modules link. */
function sdkCopy(home: string, example: string): string {
  const dir = join(home, example);
  cpSync(join(EXAMPLES, example), dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules', '@zot'), { recursive: true });
  symlinkSync(join(ROOT, 'packages', 'sdk'), join(dir, 'node_modules', '@zot', 'sdk'));
  return dir;
}

function setup(env: Record<string, string> = {}) {
  const box = makeSandbox();
  const run = (args: string[]) =>
    runZot([...args, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: { ...FAST_TIMEOUTS, ...env },
    });
  return { box, run };
}

type Event = Record<string, unknown> & { type: string };
const ofType = (stdout: string, type: string): Event[] =>
  jsonLines(stdout).filter((e) => e.type === type);

test('hello: /hello NAME displays, /hello prompts the model, /where shows hello_ack, /scripts from onHello', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const hello = join(EXAMPLES, 'hello');
  const named = await run(['-p', '/hello world', '--ext', hello]);
  assert.equal(named.code, 0, named.stderr);
  assert.equal(named.stdout, 'hello, world!\n');

  llm.script({ text: 'Hi!' });
  const greeted = await run(['-p', '/hello', '--ext', hello]);
  assert.equal(greeted.code, 0, greeted.stderr);
  assert.equal(greeted.stdout, 'Hi!\n');
  assert.equal(
    llm.requests.at(-1)!.body.messages[0].content[0].text,
    'Greet me very briefly in one sentence.',
  );

  const where = await run(['--json', '/where', '--ext', hello]);
  const [shown] = ofType(where.stdout, 'ext_display');
  assert.equal(shown?.extension, 'hello');
  assert.match(String(shown?.text), new RegExp(`^${box.project} · anthropic/\\S+ · zot \\d`));

  const none = await run(['-p', '/scripts', '--ext', hello]);
  assert.notEqual(none.code, 0, 'no package.json: no /scripts');
  writeFileSync(
    join(box.project, 'package.json'),
    JSON.stringify({ scripts: { test: 'node --test' } }),
  );
  const scripts = await run(['-p', '/scripts', '--ext', hello]);
  assert.equal(scripts.code, 0, scripts.stderr);
  assert.equal(scripts.stdout, 'npm run test: node --test\n');
});

test('weather: the model calls the tool; a service failure is a tool error', async (t) => {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url?.startsWith('/Nowhere')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        current_condition: [
          {
            temp_C: '16',
            temp_F: '61',
            windspeedKmph: '11',
            windspeedMiles: '7',
            humidity: '80',
            weatherDesc: [{ value: 'Fog' }],
          },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const { box, run } = setup({ WEATHER_BASE_URL: `http://127.0.0.1:${port}` });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // A copy whose permissions.net lets it reach the stand-in (the example's names wttr.in only).
  const weather = sdkCopy(box.home, 'weather');
  const manifestPath = join(weather, 'extension.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  manifest.permissions.net = [`127.0.0.1:${port}`];
  writeFileSync(manifestPath, JSON.stringify(manifest));
  llm.script(
    {
      toolCalls: [
        { id: 'w1', name: 'weather', args: { city: 'Berlin' } },
        { id: 'w2', name: 'weather', args: { city: 'New York', units: 'imperial' } },
        { id: 'w3', name: 'weather', args: { city: 'Nowhere' } },
      ],
    },
    { text: 'Foggy.' },
  );
  const result = await run(['--json', '/weather Berlin', '--ext', weather]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(llm.requests.at(-2)!.body.messages[0].content[0].text, /weather in Berlin/);
  const results = ofType(result.stdout, 'tool_result') as Array<
    Event & { is_error: boolean; content: Array<{ text: string }> }
  >;
  assert.deepEqual(
    results.map((r) => [r.extension, r.is_error, r.content[0]!.text]),
    [
      ['weather', false, 'Berlin: 16°C, Fog, wind 11 km/h, humidity 80%'],
      ['weather', false, 'New York: 61°F, Fog, wind 7 mph, humidity 80%'],
      ['weather', true, 'weather service: HTTP 404 for Nowhere'],
    ],
  );
  assert.deepEqual(asked.sort(), [
    '/Berlin?format=j1',
    '/New%20York?format=j1',
    '/Nowhere?format=j1',
  ]);
});

test('weather as shipped reaches wttr.in only: other hosts are refused, loopback is not there', async (t) => {
  let asked = 0;
  const server: Server = createServer((_req, res) => (asked++, res.end('{}')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const ask = async (base: string) => {
    const { box, run } = setup({ WEATHER_BASE_URL: base });
    t.after(() => box.cleanup());
    expectNoLeftovers(t, box.home);
    llm.script(
      { toolCalls: [{ id: 'w1', name: 'weather', args: { city: 'Berlin' } }] },
      { text: 'No weather.' },
    );
    const result = await run(['--json', 'weather?', '--ext', sdkCopy(box.home, 'weather')]);
    assert.equal(result.code, 0, result.stderr);
    const [answer] = ofType(result.stdout, 'tool_result') as Array<
      Event & { is_error: boolean; content: Array<{ text: string }> }
    >;
    assert.equal(answer?.is_error, true);
    return {
      text: answer!.content[0]!.text,
      log: readFileSync(join(box.home, 'logs', 'ext-weather.log'), 'utf8'),
    };
  };
  // Another host: zot's proxy refuses it, and the refusal is in the extension's log.
  const other = await ask(`http://blocked.example:${port}`);
  assert.equal(other.text, 'weather service: HTTP 403 for Berlin');
  assert.match(other.log, new RegExp(`blocked network access to blocked\\.example:${port}`));
  // The host's loopback: the sandbox has a network of its own, where nothing listens.
  const loopback = await ask(`http://127.0.0.1:${port}`);
  assert.match(loopback.text, /^weather service unreachable: connect ECONNREFUSED 127\.0\.0\.1:/);
  assert.equal(asked, 0, 'nothing reached the server');
});

test('loader: deferred tools are offered only after toolbox_load activates them', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  llm.script(
    { toolCalls: [{ id: 'l1', name: 'toolbox_load', args: { tools: ['sha256'] } }] },
    { toolCalls: [{ id: 'l2', name: 'sha256', args: { text: 'abc' } }] },
    { text: 'done' },
  );
  const result = await run(['--json', 'hash abc', '--ext', join(EXAMPLES, 'loader')]);
  assert.equal(result.code, 0, result.stderr);
  const offered = llm.requests
    .slice(-3)
    .map((r) =>
      (r.body.tools as Array<{ name: string }>)
        .map((tool) => tool.name)
        .filter((name) => ['toolbox_load', 'sha256', 'base64', 'uuid'].includes(name)),
    );
  assert.deepEqual(
    offered.map((names) => names.sort()),
    [['toolbox_load'], ['sha256', 'toolbox_load'], ['sha256', 'toolbox_load']],
  );
  const results = ofType(result.stdout, 'tool_result') as Array<
    Event & { content: Array<{ text: string }> }
  >;
  assert.deepEqual(
    results.map((r) => r.content[0]!.text),
    ['loaded sha256; call them next', createHash('sha256').update('abc').digest('hex')],
  );
});

test('scratchpad: TypeScript from source; notes persist in the data directory; the model reads them', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // A copy outside the repository (its state file must not land in examples/), finding the SDK
  // and esbuild through node_modules links as an installed copy would.
  const dir = join(box.home, 'scratchpad');
  cpSync(join(EXAMPLES, 'scratchpad'), dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules', '@zot'), { recursive: true });
  symlinkSync(join(ROOT, 'packages', 'sdk'), join(dir, 'node_modules', '@zot', 'sdk'));
  symlinkSync(join(ROOT, 'node_modules', 'esbuild'), join(dir, 'node_modules', 'esbuild'));

  const log = () => readFileSync(join(box.home, 'logs', 'ext-scratchpad.log'), 'utf8');
  const note = await run(['--json', '/note buy   milk', '--ext', dir]);
  assert.equal(note.code, 0, note.stderr + log());
  const [noted] = ofType(note.stdout, 'ext_notify');
  assert.deepEqual([noted?.level, noted?.message], ['success', 'noted (1 on the scratchpad)']);
  assert.equal((await run(['-p', '/note call Bob', '--ext', dir])).code, 0);
  const list = await run(['-p', '/notes', '--ext', dir]);
  assert.equal(list.stdout, '1. buy milk\n2. call Bob\n');
  const data = scopedDataDir(box.home, 'scratchpad', dir);
  assert.equal(readFileSync(join(data, 'scratchpad.txt'), 'utf8'), 'buy milk\ncall Bob\n');

  llm.script(
    { toolCalls: [{ id: 's1', name: 'scratchpad', args: { action: 'read' } }] },
    { text: 'You need milk.' },
  );
  const asked = await run(['--json', 'what is on my scratchpad?', '--ext', dir]);
  const [read] = ofType(asked.stdout, 'tool_result') as Array<
    Event & { content: Array<{ text: string }> }
  >;
  assert.equal(read?.content[0]?.text, '1. buy milk\n2. call Bob');
  const usage = await run(['-p', '/note', '--ext', dir]);
  assert.notEqual(usage.code, 0);
  assert.match(usage.stderr, /usage: \/note TEXT/);
  assert.equal((await run(['-p', '/notes-clear', '--ext', dir])).stdout, 'scratchpad cleared\n');
  assert.equal((await run(['-p', '/notes', '--ext', dir])).stdout, 'the scratchpad is empty\n');
});

test('the examples type-check against the SDK (checkJs for the JavaScript ones)', () => {
  const typesNode = dirname(
    dirname(fileURLToPath(import.meta.resolve('@types/node/package.json'))),
  );
  const files = ['hello', 'weather', 'guard', 'loader'].map((name) =>
    join(EXAMPLES, name, 'index.mjs'),
  );
  files.push(join(EXAMPLES, 'scratchpad', 'src', 'index.ts'));
  const program = ts.createProgram(files, {
    allowJs: true, // the JavaScript examples opt in with // @ts-check
    noEmit: true,
    strict: true,
    noImplicitAny: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [typesNode],
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  assert.deepEqual(problems, []);
});
