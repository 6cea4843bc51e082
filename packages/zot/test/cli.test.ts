import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { makeSandbox, runZot } from './support/zot.js';

const box = makeSandbox();
after(() => box.cleanup());
const run = (args: string[], input?: string, env?: Record<string, string | undefined>) =>
  runZot(args, {
    home: box.home,
    cwd: box.project,
    ...(input !== undefined ? { input } : {}),
    ...(env ? { env } : {}),
  });

test('--version and --help exit 0 and write to stdout', async () => {
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^zot \d+\.\d+\.\d+\n$/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  for (const flag of [
    '--print',
    '--json',
    '--provider',
    '--max-steps',
    '--continue',
    '--no-session',
    '--list-models',
  ]) {
    assert.ok(help.stdout.includes(flag), `help mentions ${flag}`);
  }
  assert.equal(help.stderr, '');
});

test('unknown flags and bad values are usage errors naming the flag (exit 2)', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--frobnicate'], /unknown option --frobnicate/],
    [
      ['--provider', 'nope', '-p', 'x'],
      /--provider must be one of anthropic, openai, kimi, ollama, lmstudio, vllm, llamacpp; got "nope"/,
    ],
    [['--max-steps', '0', '-p', 'x'], /--max-steps expects a positive integer, got "0"/],
    [['--reasoning=extreme', '-p', 'x'], /--reasoning must be one of low, medium, high/],
    [['-p', '--model'], /--model expects a value/],
    [['--tools', 'read,teleport', '-p', 'x', '--api-key', 'k'], /--tools: unknown tool teleport/],
    [['--cwd', '/definitely/not/here', '-p', 'x'], /--cwd: not a directory/],
  ];
  for (const [args, pattern] of cases) {
    const result = await run(args);
    assert.equal(result.code, 2, `${args.join(' ')} -> exit 2 (stderr: ${result.stderr})`);
    assert.match(result.stderr, pattern);
    assert.equal(result.stdout, '');
  }
});

test('the interactive mode without a terminal is refused with a clear message', async () => {
  const result = await run(['hello']);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /the interactive mode needs a terminal \(stdin and stdout\); use -p\/--print, --json or `zot rpc`/,
  );
});

test('a missing key says how to provide one (exit 1)', async () => {
  const result = await run(['-p', 'hi', '--provider', 'anthropic']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no API key for anthropic/);
  assert.match(result.stderr, /ANTHROPIC_API_KEY/);
  assert.match(result.stderr, /zot auth set anthropic/);
});

test('a prompt is required in print mode', async () => {
  const result = await run(['-p'], '');
  assert.equal(result.code, 2);
  assert.match(result.stderr, /no prompt given/);
});

test('zot auth set / list / remove manage auth.json with mode 0600', async () => {
  const set = await run(['auth', 'set', 'openai'], 'sk-test-1234567890\n');
  assert.equal(set.code, 0, set.stderr);
  const authPath = join(box.home, 'auth.json');
  assert.equal(statSync(authPath).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(authPath, 'utf8')), {
    openai: { key: 'sk-test-1234567890' },
  });
  const list = await run(['auth', 'list']);
  assert.equal(list.code, 0);
  assert.equal(list.stdout, 'openai\tsk-t…7890\n');
  assert.ok(!list.stdout.includes('1234567890'.slice(0, 6) + '7'), 'the key is masked');
  const bad = await run(['auth', 'set', 'acme'], 'x');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown provider "acme"/);
  const remove = await run(['auth', 'remove', 'openai']);
  assert.equal(remove.code, 0);
  const again = await run(['auth', 'remove', 'openai']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no stored key for openai/);
});

test('a corrupt auth.json is reported, not overwritten', async () => {
  const authPath = join(box.home, 'auth.json');
  writeFileSync(authPath, '{not json');
  const result = await run(['auth', 'set', 'kimi'], 'key');
  assert.equal(result.code, 1);
  assert.match(result.stderr, /auth\.json: invalid JSON/);
  assert.equal(readFileSync(authPath, 'utf8'), '{not json');
  writeFileSync(authPath, '{}');
});

test('--list-models lists the catalog, including models.json additions', async () => {
  writeFileSync(
    join(box.home, 'models.json'),
    JSON.stringify([{ provider: 'kimi', id: 'my-kimi', contextWindow: 4096, maxTokens: 512 }]),
  );
  const result = await run(['--list-models', '--provider', 'kimi']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^my-kimi\tcontext 4096\tmax output 512/m);
  assert.match(result.stdout, /^kimi-k2-0905-preview\t/m);
});
