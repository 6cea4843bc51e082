import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { collect, jsonLines, makeSandbox, runZot, startZot } from './support/zot.js';

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

const base = () => [
  '--provider',
  'anthropic',
  '--base-url',
  llm.url,
  '--api-key',
  'test-key',
  '--no-session',
];
const run = (args: string[], input?: string) =>
  runZot(args, { home: box.home, cwd: box.project, ...(input !== undefined ? { input } : {}) });

test('print mode writes the final answer to stdout (anthropic format)', async () => {
  llm.script({ text: ['Hello', ', ', 'world'] });
  const result = await run(['-p', 'say hi', ...base()]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'Hello, world\n');
  const request = llm.requests.at(-1)!;
  assert.equal(request.format, 'anthropic');
  assert.equal(request.headers['x-api-key'], 'test-key');
  assert.equal(request.body.messages.length, 1);
  assert.equal(request.body.messages[0].role, 'user');
  assert.equal(request.body.messages[0].content[0].text, 'say hi');
});

test('the prompt may come on stdin', async () => {
  llm.script({ text: 'ok' });
  const result = await run(['-p', ...base()], 'from stdin\n');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(llm.requests.at(-1)!.body.messages[0].content[0].text, 'from stdin');
});

test('JSON mode streams every event of a tool round trip on real files', async () => {
  writeFileSync(join(box.project, 'notes.txt'), 'alpha\nbeta\n');
  llm.script(
    { text: 'Reading.', toolCalls: [{ id: 'call_1', name: 'read', args: { path: 'notes.txt' } }] },
    {
      toolCalls: [
        {
          id: 'call_2',
          name: 'edit',
          args: { path: 'notes.txt', edits: [{ oldText: 'beta', newText: 'gamma' }] },
        },
        { id: 'call_3', name: 'bash', args: { command: 'cat notes.txt; echo err >&2; exit 3' } },
        { id: 'call_4', name: 'write', args: { path: 'sub/dir/new.txt', content: 'fresh' } },
      ],
    },
    { text: 'All done.' },
  );
  const result = await run(['--json', 'edit it', ...base()]);
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  const types = events
    .map((event) => event.type)
    .filter((type) => !type.endsWith('_delta') && type !== 'state');
  assert.deepEqual(types.slice(0, 4), ['user_message', 'turn_start', 'assistant_start', 'usage']);
  assert.equal(types.at(-1), 'done');
  // The runtime's state: busy while the prompt runs, idle (with the whole transcript) before done.
  const states = events.filter((event) => event.type === 'state');
  assert.equal(states[0]?.busy, true);
  assert.deepEqual(events.at(-2), { ...states.at(-1), type: 'state' });
  assert.equal(states.at(-1)?.busy, false);
  // The prompt, three answers and the two tool messages between them.
  assert.equal(states.at(-1)?.message_count, 1 + 3 + 2);
  assert.equal(types.filter((type) => type === 'turn_start').length, 3);
  const results = events.filter((event) => event.type === 'tool_result') as unknown as Array<{
    id: string;
    is_error: boolean;
    content: Array<{ text: string }>;
  }>;
  assert.deepEqual(
    results.map((r) => [r.id, r.is_error]),
    [
      ['call_1', false],
      ['call_2', false],
      ['call_3', true],
      ['call_4', false],
    ],
  );
  assert.match(results[0]!.content[0]!.text, /1\talpha\n\s*2\tbeta/);
  assert.match(results[1]!.content[0]!.text, /-beta\n\+gamma/);
  assert.match(results[2]!.content[0]!.text, /alpha\ngamma\nerr\n[\s\S]*exit code 3/);
  assert.equal(readFileSync(join(box.project, 'notes.txt'), 'utf8'), 'alpha\ngamma\n');
  assert.equal(readFileSync(join(box.project, 'sub/dir/new.txt'), 'utf8'), 'fresh');
  const usage = events.find((event) => event.type === 'usage')!;
  assert.deepEqual(Object.keys(usage).sort(), [
    'cache_read',
    'cache_write',
    'cost_usd',
    'cumulative',
    'input',
    'output',
    'type',
  ]);
  // The tool results went back to the model in the next request.
  const second = llm.requests.at(-2)!.body.messages.at(-1);
  assert.equal(second.role, 'user');
  assert.equal(second.content[0].type, 'tool_result');
  assert.equal(second.content[0].tool_use_id, 'call_1');
});

test('OpenAI Responses and Chat Completions formats work end to end', async () => {
  llm.script({ text: 'from responses' });
  const responses = await run(['-p', 'hi', ...base(), '--provider', 'openai', '--model', 'gpt-5']);
  assert.equal(responses.code, 0, responses.stderr);
  assert.equal(responses.stdout, 'from responses\n');
  assert.equal(llm.requests.at(-1)!.format, 'openai-responses');
  assert.equal(llm.requests.at(-1)!.headers.authorization, 'Bearer test-key');

  llm.script(
    { toolCalls: [{ id: 'c1', name: 'bash', args: { command: 'echo chat' } }] },
    { text: 'from chat' },
  );
  const chat = await run([
    '-p',
    'hi',
    '--provider',
    'ollama',
    '--base-url',
    `${llm.url}/v1`,
    '--no-session',
  ]);
  assert.equal(chat.code, 0, chat.stderr);
  assert.equal(chat.stdout, 'from chat\n');
  const last = llm.requests.at(-1)!;
  assert.equal(last.format, 'openai-chat');
  const toolMessage = last.body.messages.find((m: { role: string }) => m.role === 'tool');
  assert.match(toolMessage.content, /chat/);
});

test('an unknown OpenAI model on a server of your own speaks Chat Completions', async () => {
  llm.script({ text: 'from a compatible server' });
  const result = await run([
    '-p',
    'hi',
    ...base(),
    '--provider',
    'openai',
    '--model',
    'my-local-model',
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'from a compatible server\n');
  assert.equal(llm.requests.at(-1)!.format, 'openai-chat');
  assert.match(
    result.stderr,
    /zot knows no limits for openai\/my-local-model: .*, and speaks Chat Completions to it/,
  );
});

test('an unknown model id is accepted with a note, said once per model and only when it is called', async (t) => {
  const own = makeSandbox();
  t.after(() => own.cleanup());
  const flags = [...base(), '--model', 'claude-from-the-future'];
  const runOwn = (args: string[]) => runZot(args, { home: own.home, cwd: own.project });
  // A run that calls no model has nothing to say about the model.
  const help = await runOwn(['-p', '/help', ...flags]);
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stderr, '');

  llm.script({ text: 'fine' }, { text: 'again' });
  const result = await runOwn(['-p', 'hi', ...flags]);
  assert.equal(result.code, 0);
  assert.match(
    result.stderr,
    /^zot: warning: zot knows no limits for anthropic\/claude-from-the-future: it assumes context 128000, max output 8192 \(set them in .*models\.json\)\. Said once per model\.\n$/,
  );
  assert.equal(llm.requests.at(-1)!.body.model, 'claude-from-the-future');
  const later = await runOwn(['-p', 'hi', ...flags]);
  assert.equal(later.code, 0);
  assert.equal(later.stderr, '', 'said once');
});

test('401 and 429 end the run with exit 1 and an error naming provider and status', async () => {
  llm.script({ status: 401, errorMessage: 'invalid x-api-key' });
  const denied = await run(['-p', 'hi', ...base()]);
  assert.equal(denied.code, 1);
  assert.match(denied.stderr, /anthropic: HTTP 401.*invalid x-api-key/);
  assert.equal(denied.stdout, '');

  const before = llm.requests.length;
  llm.script({ status: 429, errorMessage: 'slow down' });
  const limited = await run([
    '--json',
    'hi',
    ...base(),
    '--provider',
    'openai',
    '--model',
    'gpt-5',
  ]);
  assert.equal(limited.code, 1);
  assert.equal(llm.requests.length, before + 1, '429 is not retried');
  const events = jsonLines(limited.stdout);
  const error = events.find((event) => event.type === 'error');
  assert.match(String(error?.message), /openai: HTTP 429.*slow down/);
  assert.equal(error?.kind, 'rate_limit');
  assert.deepEqual(events.filter((e) => e.type === 'turn_end').at(-1), {
    type: 'turn_end',
    stop: 'error',
    error: error?.message,
    error_kind: 'rate_limit',
  });
});

test('502/503 and connection resets are retried silently before any output', async () => {
  const before = llm.requests.length;
  llm.script({ status: 503 }, { resetConnection: true }, { text: 'third time lucky' });
  const result = await run(['-p', 'hi', ...base()]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'third time lucky\n');
  assert.equal(llm.requests.length - before, 3);
});

test('SIGINT aborts a hanging stream at once: turn_end aborted, done, exit 130', async () => {
  llm.script({ text: ['partial '], hang: true });
  const child = startZot(['--json', 'hi', ...base()], { home: box.home, cwd: box.project });
  let seen = '';
  let sent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    if (!sent && seen.includes('text_delta')) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  const result = await collect(child, undefined, hangGuard(10_000));
  assert.equal(result.code, 130);
  const events = jsonLines(seen);
  assert.deepEqual(
    events.filter((e) => e.type === 'turn_end'),
    [{ type: 'turn_end', stop: 'aborted' }],
  );
  assert.equal(events.at(-1)!.type, 'done');
});

test('--max-steps stops a model that keeps calling tools', async () => {
  const call = { toolCalls: [{ name: 'bash', args: { command: 'true' } }] };
  llm.script(call, call);
  const result = await run(['-p', 'loop', ...base(), '--max-steps', '2']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /stopped after 2 steps \(--max-steps\)/);
});

test('--no-tools and --tools control what the model is offered', async () => {
  llm.script({ text: 'a' }, { text: 'b' });
  await run(['-p', 'x', ...base(), '--no-tools']);
  assert.equal(llm.requests.at(-1)!.body.tools, undefined);
  await run(['-p', 'x', ...base(), '--tools', 'read,bash']);
  assert.deepEqual(
    llm.requests.at(-1)!.body.tools.map((t: { name: string }) => t.name),
    ['read', 'bash'],
  );
});

test('system prompt: SYSTEM.md replaces the default, flags override and append', async () => {
  writeFileSync(join(box.home, 'SYSTEM.md'), 'You are a test fixture.');
  llm.script({ text: 'a' }, { text: 'b' });
  await run([
    '-p',
    'x',
    ...base(),
    '--append-system-prompt',
    'One.',
    '--append-system-prompt',
    'Two.',
    '--no-skill',
  ]);
  assert.equal(llm.requests.at(-1)!.body.system[0].text, 'You are a test fixture.\n\nOne.\n\nTwo.');
  await run(['-p', 'x', ...base(), '--system-prompt', 'Override.', '--no-skill']);
  assert.equal(llm.requests.at(-1)!.body.system[0].text, 'Override.');
});
