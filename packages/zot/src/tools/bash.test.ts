import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ToolOutput } from '../agent/tool.js';
import { createBashTool, type BashToolOptions } from './bash.js';
import { makeContext, tempDir, textOf, type TestContext } from './test-helpers.js';

let dir = '';
let cleanup = (): void => {};
before(() => ({ dir, cleanup } = tempDir('zot-bash-test-')));
after(() => cleanup());

function bash(
  command: string,
  options: BashToolOptions = {},
  context?: TestContext,
  timeout?: number,
) {
  const tool = createBashTool({ outputDir: join(dir, 'out'), ...options });
  const args = timeout === undefined ? { command } : { command, timeout };
  return tool.execute(args, context ?? makeContext(dir));
}

/** Gone, or a zombie nobody reaps (a container's PID 1 may not). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

const pidIn = (name: string) => Number(readFileSync(join(dir, name), 'utf8').trim());

test('merges stdout and stderr in arrival order', async () => {
  for (let i = 0; i < 3; i++) {
    const output = await bash('echo a; echo b >&2; echo c');
    assert.equal(output.isError, false);
    assert.equal(textOf(output), 'a\nb\nc');
  }
});

test('runs in the context cwd; sh works as the shell too', async () => {
  assert.equal(textOf(await bash('pwd')), dir);
  assert.equal(textOf(await bash('echo a; echo b >&2; echo c', { shell: 'sh' })), 'a\nb\nc');
});

test('a non-zero exit is an error ending with the exit code', async () => {
  const output = await bash('echo oops; exit 3');
  assert.equal(output.isError, true);
  assert.equal(textOf(output), 'oops\n\nexit code 3');
});

test('a shell killed by a signal is reported by signal name', async () => {
  const output = await bash('kill -KILL $$');
  assert.equal(output.isError, true);
  assert.match(textOf(output), /killed by signal SIGKILL$/);
});

test('empty output reads (no output)', async () => {
  const output = await bash('true');
  assert.deepEqual(output.content, [{ type: 'text', text: '(no output)' }]);
  assert.equal(output.isError, false);
});

test('a timeout kills the whole process group, grandchildren included', async () => {
  // Ten-minute sleeps: the call can only come back because the group was killed.
  const output = await bash(
    '(sleep 600 & echo $! > sub.pid); sleep 600 & echo $! > bg.pid; echo waiting; wait',
    {},
    undefined,
    0.5,
  );
  assert.equal(output.isError, true);
  assert.equal(textOf(output), 'waiting\n\nbash: timed out after 0.5s; process group killed');
  for (const name of ['sub.pid', 'bg.pid']) assert.ok(processGone(pidIn(name)), `${name} survived`);
});

test('a background process holding the pipe does not keep the call waiting', async () => {
  const output = await bash('sleep 600 & echo $! > held.pid; echo done');
  try {
    assert.equal(output.isError, false);
    assert.match(textOf(output), /^done\n\n\[stopped reading output: a background process/);
  } finally {
    process.kill(pidIn('held.pid'), 'SIGKILL');
  }
});

test('abort mid-run kills the group and resolves promptly', async () => {
  const controller = new AbortController();
  const context = makeContext(dir, controller.signal);
  context.onProgress = (text) => {
    context.progress.push(text);
    if (text.includes('started')) controller.abort();
  };
  const output = await bash('sleep 600 & echo $! > abort.pid; echo started; wait', {}, context);
  assert.equal(output.isError, true);
  assert.equal(textOf(output), 'started\n\nbash: aborted');
  assert.ok(processGone(pidIn('abort.pid')));

  const already = await bash('echo never', {}, makeContext(dir, AbortSignal.abort()));
  assert.equal(textOf(already), 'bash: aborted');
});

test('long output returns its tail and saves the full output to a file', async () => {
  const output = await bash('seq 1 5000');
  const text = textOf(output);
  const match =
    /^\[output truncated: showing last 2000 of 5000 lines; full output saved to (\S+)\]\n\n/.exec(
      text,
    );
  assert.ok(match?.[1], text.slice(0, 200));
  assert.ok(match[1].startsWith(join(dir, 'out')));
  const body = text.slice(match[0].length).split('\n');
  assert.equal(body.length, 2000);
  assert.equal(body[0], '3001');
  assert.equal(body.at(-1), '5000');
  const expected = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('');
  assert.equal(readFileSync(match[1], 'utf8'), expected);
});

test('output is capped by bytes too, cutting at line boundaries', async () => {
  // 100 lines of 1000 bytes: 50 KB holds 51 whole lines.
  const output = await bash("for i in $(seq 1 100); do printf '%0999d\\n' $i; done");
  const text = textOf(output);
  assert.match(text, /^\[output truncated: showing last 51 of 100 lines; full output saved to /);
  const lines = text.split('\n\n')[1]?.split('\n') ?? [];
  assert.equal(lines.length, 51);
  assert.ok(lines.every((line) => line.length === 999));
  assert.ok(lines.at(-1)?.endsWith('100'));

  const single = textOf(await bash("head -c 200000 /dev/zero | tr '\\0' x", { maxBytes: 1000 }));
  assert.match(
    single,
    /^\[output truncated: showing the last 1000 B of the last line; full output saved to /,
  );
});

test('progress reports new lines, throttled', async () => {
  const context = makeContext(dir);
  const started = Date.now();
  const output = await bash('for i in $(seq 1 30); do echo line$i; sleep 0.02; done', {}, context);
  const elapsed = Date.now() - started;
  assert.equal(output.isError, false);
  const lines = context.progress.join('\n').split('\n');
  assert.deepEqual(
    lines,
    Array.from({ length: 30 }, (_, i) => `line${i + 1}`),
  );
  assert.ok(context.progress.length >= 2, 'progress arrives while the command runs');
  assert.ok(
    context.progress.length <= Math.ceil(elapsed / 100) + 2,
    `${context.progress.length} calls`,
  );
});

test('rejects a non-positive timeout, an empty command and a missing cwd', async () => {
  for (const timeout of [0, -1]) {
    const output = await bash('echo hi', {}, undefined, timeout);
    assert.equal(output.isError, true);
    assert.match(textOf(output), /^bash: timeout must be a positive number of seconds/);
  }
  assert.equal(textOf(await bash('  ')), 'bash: command is empty');
  const missing = await bash('pwd', {}, makeContext(join(dir, 'missing')));
  assert.match(textOf(missing), /^bash: the working directory does not exist/);
  const noShell = await bash('true', { shell: join(dir, 'no-such-shell') });
  assert.equal(noShell.isError, true);
  assert.match(textOf(noShell), /^bash: cannot start /);
});

test('the default timeout applies when the call gives none', async () => {
  const output: ToolOutput = await bash('sleep 5', { defaultTimeoutSec: 0.2 });
  assert.match(textOf(output), /bash: timed out after 0.2s; process group killed$/);
});

test('preview shows the command on one line', () => {
  const tool = createBashTool();
  assert.equal(tool.preview?.({ command: 'ls -la' }), 'ls -la');
  assert.equal(tool.preview?.({ command: 'cd x\nmake' }), 'cd x ↵ make');
});

test('details: exit code, signal, timeout and the saved full output, apart from the content', async () => {
  assert.deepEqual((await bash('true')).details, {
    kind: 'bash',
    exit_code: 0,
    timed_out: false,
    aborted: false,
    truncated: false,
  });
  assert.deepEqual((await bash('exit 3')).details, {
    kind: 'bash',
    exit_code: 3,
    timed_out: false,
    aborted: false,
    truncated: false,
  });
  const killed = (await bash('kill -KILL $$')).details;
  assert.equal(killed?.kind === 'bash' && killed.signal, 'SIGKILL');
  assert.equal(killed?.kind === 'bash' && killed.exit_code, undefined);
  const timedOut = (await bash('sleep 600', {}, undefined, 0.3)).details;
  assert.equal(timedOut?.kind === 'bash' && timedOut.timed_out, true);
  const long = await bash('seq 1 3000');
  const details = long.details;
  assert.equal(details?.kind === 'bash' && details.truncated, true);
  const saved = details?.kind === 'bash' ? details.full_output_path : undefined;
  assert.ok(saved && textOf(long).includes(`full output saved to ${saved}`));
  assert.equal(readFileSync(saved, 'utf8').split('\n').length, 3001);
});
