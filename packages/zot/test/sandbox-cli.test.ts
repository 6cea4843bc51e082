// The sandbox through the CLI: `zot doctor sandbox` with the real bwrap and with a fake one
// failing like each known cause; --sandbox required never runs a command unsandboxed; `on`
// says so once; the file tools keep to the same boundaries; a project can only raise the mode.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { diagnoseBwrapFailure } from '../src/security/sandbox/diagnose.js';
import { kernelFacts } from '../src/security/sandbox/probe.js';
import {
  fakeLlmFlags,
  startFakeLlm,
  type FakeLlm,
  type RecordedRequest,
} from './support/fake-llm.js';
import {
  BWRAP_FAILURES,
  fakeBwrapDir,
  makeSandboxBox,
  type BwrapFailure,
  type SandboxBox,
} from './support/sandbox.js';
import { runZot } from './support/zot.js';

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

/** zot with the box's ZOT_HOME and HOME, in its project. */
function zot(args: string[], env: Record<string, string | undefined> = {}) {
  return runZot(args, { home: box.zotHome, cwd: box.project, env: { HOME: box.home, ...env } });
}

const withPath = (dir: string) => ({ PATH: `${dir}:${process.env.PATH ?? ''}` });

/** The text of every tool result the model got back in `request`. */
function toolResults(request: RecordedRequest | undefined): string {
  const messages = (request?.body?.messages ?? []) as Array<{ content: unknown }>;
  const texts: string[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block.type !== 'tool_result') continue;
      const content = block.content;
      if (typeof content === 'string') texts.push(content);
      else if (Array.isArray(content))
        for (const part of content as Array<{ text?: string }>) texts.push(part.text ?? '');
    }
  }
  return texts.join('\n');
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, args });

test('zot doctor sandbox passes with the real bwrap, and shows the policy of this directory', async () => {
  const result = await zot(['doctor', 'sandbox']);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.match(result.stdout, /PASS {2}bwrap installed: \//);
  assert.match(result.stdout, /PASS {2}trial run/);
  assert.match(result.stdout, /The sandbox can start here\./);
  assert.ok(result.stdout.includes(`${box.project}  (the project directory)`));
  assert.ok(result.stdout.includes(`${join(box.home, '.ssh')}  (~/.ssh (always hidden))`));
});

test('zot doctor: usage errors exit 2, --help exits 0', async () => {
  assert.equal((await zot(['doctor'])).code, 2);
  assert.equal((await zot(['doctor', 'nonsense'])).code, 2);
  const help = await zot(['doctor', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: zot doctor sandbox/);
});

test('zot doctor sandbox without bwrap: FAIL, exit 1, and how to install it', async () => {
  const result = await zot(['doctor', 'sandbox'], { PATH: join(box.base, 'empty-path') });
  assert.equal(result.code, 1);
  assert.match(result.stdout, /FAIL {2}bwrap installed: not found on PATH/);
  assert.match(result.stdout, /fix: Install it: sudo apt-get install bubblewrap/);
});

for (const cause of Object.keys(BWRAP_FAILURES) as BwrapFailure[]) {
  test(`zot doctor sandbox with a bwrap failing like "${cause}": the diagnosis and its fix`, async () => {
    const dir = fakeBwrapDir(box.base, cause);
    const result = await zot(['doctor', 'sandbox'], withPath(dir));
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /FAIL {2}trial run/);
    // The unit tests check each cause against the kernel's settings; here: that doctor shows the
    // diagnosis of what bwrap said on this machine, with its fix.
    const expected = diagnoseBwrapFailure(
      BWRAP_FAILURES[cause],
      kernelFacts({}, join(dir, 'bwrap')),
    );
    assert.ok(
      result.stdout.includes(expected.message),
      `${expected.message}\n---\n${result.stdout}`,
    );
    assert.ok(result.stdout.includes(expected.fix.split('\n')[0]!), result.stdout);
  });
}

test('--sandbox required with a broken bwrap: the command never runs; the model and the user are told why', async () => {
  const marker = join(box.project, 'ran-unsandboxed');
  llm.script(
    { toolCalls: [call('b1', 'bash', { command: `touch ${marker}` })] },
    { toolCalls: [call('b2', 'bash', { command: `touch ${marker}` })] },
    { text: 'done' },
  );
  const from = llm.requests.length;
  const dir = fakeBwrapDir(box.base, 'apparmor');
  const result = await zot(
    ['-p', '--no-session', '--sandbox', 'required', ...fakeLlmFlags(llm.url), 'go'],
    withPath(dir),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!existsSync(marker), 'required never runs a command unsandboxed');
  const seen = toolResults(llm.requests[from + 1]);
  const expected = diagnoseBwrapFailure(
    BWRAP_FAILURES.apparmor,
    kernelFacts({}, join(dir, 'bwrap')),
  );
  assert.match(seen, /bash: not run: the sandbox is required/);
  assert.ok(seen.includes(expected.message), seen);
  assert.ok(seen.includes('Fix: '), seen);
  // The user hears it once on stderr, however many commands are refused.
  const warnings = result.stderr
    .split('\n')
    .filter((line) => line.includes('the sandbox is required, but it cannot start'));
  assert.equal(warnings.length, 1, result.stderr);
});

test('--sandbox on with a broken bwrap: one warning, then commands run unsandboxed', async () => {
  const marker = join(box.project, 'ran-without-sandbox');
  llm.script(
    { toolCalls: [call('o1', 'bash', { command: `touch ${marker}` })] },
    { toolCalls: [call('o2', 'bash', { command: 'echo second' })] },
    { text: 'done' },
  );
  const result = await zot(
    ['-p', '--no-session', '--sandbox', 'on', ...fakeLlmFlags(llm.url), 'go'],
    withPath(fakeBwrapDir(box.base, 'container')),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(existsSync(marker));
  const warnings = result.stderr
    .split('\n')
    .filter((line) => line.includes('commands run WITHOUT it'));
  assert.equal(warnings.length, 1, result.stderr);
});

test('--sandbox required: bash and the file tools keep to the same boundaries', async () => {
  const outsideFile = join(box.outside, 'from-zot');
  llm.script(
    {
      toolCalls: [
        call('f1', 'bash', { command: `echo x > ${outsideFile}; echo inside > made-inside.txt` }),
        call('f2', 'read', { path: '~/.ssh/id_ed25519' }),
        call('f3', 'write', { path: outsideFile, content: 'x' }),
        call('f4', 'write', { path: 'fine.txt', content: 'ok' }),
        call('f5', 'read', { path: join(box.zotHome, 'auth.json') }),
      ],
    },
    { text: 'done' },
  );
  const from = llm.requests.length;
  const result = await zot([
    '-p',
    '--no-session',
    '--sandbox',
    'required',
    ...fakeLlmFlags(llm.url),
    'go',
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!existsSync(outsideFile));
  assert.ok(existsSync(join(box.project, 'made-inside.txt')));
  assert.ok(existsSync(join(box.project, 'fine.txt')));
  const seen = toolResults(llm.requests[from + 1]);
  assert.doesNotMatch(seen, /SECRET/);
  assert.match(
    seen,
    /read: denied by the sandbox: .*\.ssh\/id_ed25519 is hidden \(~\/\.ssh \(always hidden\)\)/,
  );
  assert.match(seen, /write: denied by the sandbox: .*from-zot is outside the writable paths/);
  assert.match(seen, /read: denied by the sandbox: .*auth\.json is hidden \(\$ZOT_HOME/);
});

test("a project's .zot/settings.json raises the mode; --sandbox off cannot lower it", async () => {
  const settings = join(box.project, '.zot', 'settings.json');
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(settings, JSON.stringify({ sandbox: { mode: 'required', allow_write: ['/'] } }));
  try {
    const target = join(box.outside, 'project-floor');
    llm.script(
      { toolCalls: [call('p1', 'bash', { command: `touch ${target}` })] },
      { text: 'done' },
    );
    const result = await zot([
      '-p',
      '--no-session',
      '--sandbox',
      'off',
      ...fakeLlmFlags(llm.url),
      'go',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!existsSync(target), 'ran sandboxed');
    assert.match(result.stderr, /sandbox\.allow_write is ignored in a project's settings/);
  } finally {
    writeFileSync(settings, '{}');
  }
});

test("a cut result's full text, saved under $ZOT_HOME, stays readable in the sandbox; the rest of $ZOT_HOME does not", async () => {
  llm.script(
    { toolCalls: [call('t1', 'bash', { command: 'seq 1 30000' })] },
    {
      toolCalls: [
        call('t2', 'bash', {
          command:
            'echo "saved lines: $(cat "$ZOT_HOME"/tool-output/*.log | wc -l)"; cat "$ZOT_HOME"/auth.json',
        }),
      ],
    },
    { text: 'done' },
  );
  const from = llm.requests.length;
  const result = await zot(
    ['-p', '--no-session', '--sandbox', 'required', ...fakeLlmFlags(llm.url), 'go'],
    {
      XDG_RUNTIME_DIR: undefined,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const seen = toolResults(llm.requests[from + 2]);
  assert.match(seen, /full output/i);
  assert.match(seen, /^saved lines: 30000$/m);
  assert.doesNotMatch(seen, /SECRET-AUTH/);
  assert.match(seen, /auth\.json: No such file or directory/);
});

test('inside the sandbox, env holds no provider key and no RPC token (by name or by value)', async () => {
  llm.script(
    { toolCalls: [call('e1', 'bash', { command: 'env; echo env-done' })] },
    { text: 'done' },
  );
  const from = llm.requests.length;
  const result = await zot(
    ['-p', '--no-session', '--sandbox', 'required', ...fakeLlmFlags(llm.url), 'go'],
    {
      ANTHROPIC_API_KEY: 'sk-ant-SANDBOX-SECRET-1',
      OPENAI_API_KEY: 'sk-SANDBOX-SECRET-2',
      ZOTCORE_RPC_TOKEN: 'SANDBOX-SECRET-TOKEN',
      COPY_OF_KEY: 'sk-ant-SANDBOX-SECRET-1',
      HARMLESS_SETTING: 'kept',
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const seen = toolResults(llm.requests[from + 1]);
  assert.match(seen, /^env-done$/m);
  assert.match(seen, /^HARMLESS_SETTING=kept$/m);
  assert.match(seen, /^TMPDIR=\/tmp$/m);
  assert.doesNotMatch(
    seen,
    /SANDBOX-SECRET|ANTHROPIC_API_KEY|OPENAI_API_KEY|ZOTCORE_RPC_TOKEN|COPY_OF_KEY/,
  );
});
