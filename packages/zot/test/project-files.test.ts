// Files zot reads from a project it did not write: context files and skills that lead outside the
// project (a committed symlink to ~/secrets) are never sent to the provider, and a FIFO where a
// context file, a skill or a manifest should be never hangs start-up. The fake LLM server records
// every request body, so "never sent" is checked on what really went over the wire.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { makeSandbox, runZot } from './support/zot.js';

const CANARY = 'CANARY-SECRET-42';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  // The secret lives beside the project, not in it: what a link from the project reaches.
  const secrets = join(box.project, '..', 'secrets');
  mkdirSync(secrets, { recursive: true });
  writeFileSync(join(secrets, 'notes.md'), `${CANARY} (context)\n`);
  const repo = join(box.project, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  return { box, secrets, repo };
}

function skill(dir: string, description: string, body: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\ndescription: ${description}\n---\n${body}\n`);
}

function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  assert.equal(made.status, 0, `mkfifo ${path}: ${String(made.stderr)}`);
}

/** Every request body the fake server received since `from`, as one string. */
const bodiesSince = (from: number) =>
  llm.requests
    .slice(from)
    .map((request) => JSON.stringify(request.body))
    .join('\n');

test('a context file that links outside the project is skipped with a warning naming both', async (t) => {
  const { box, repo, secrets } = setup(t);
  symlinkSync(join(secrets, 'notes.md'), join(repo, 'AGENTS.md'));
  const sub = join(repo, 'pkg');
  mkdirSync(sub);
  symlinkSync(join(secrets, 'notes.md'), join(sub, 'CLAUDE.md'));
  // A link that stays inside the project is fine (CLAUDE.md -> AGENTS.md is common).
  writeFileSync(join(sub, 'RULES.md'), 'PKG RULES (inside the project)');
  const deeper = join(sub, 'deeper');
  mkdirSync(deeper);
  symlinkSync(join(sub, 'RULES.md'), join(deeper, 'AGENTS.md'));
  const from = llm.requests.length;
  for (const mode of [['-p'], ['--json']]) {
    llm.script({ text: 'ok' });
    const result = await runZot([...fakeLlmFlags(llm.url), ...mode, 'hi', '--no-skill'], {
      home: box.home,
      cwd: deeper,
    });
    assert.equal(result.code, 0, result.stderr);
    for (const link of [join(repo, 'AGENTS.md'), join(sub, 'CLAUDE.md')]) {
      assert.ok(
        result.stderr.includes(`${link} leads to ${join(secrets, 'notes.md')}, outside ${repo}`),
        `the warning names ${link} and its target:\n${result.stderr}`,
      );
    }
  }
  const sent = bodiesSince(from);
  assert.ok(!sent.includes(CANARY), 'the canary never reached the provider');
  assert.ok(sent.includes('PKG RULES (inside the project)'), 'a link inside the project counts');
});

test('skills that lead outside the project, by a linked folder or a linked SKILL.md, are skipped', async (t) => {
  const { box, repo, secrets } = setup(t);
  // .zot/skills -> ~/secrets: a whole folder of someone else's choosing.
  skill(join(secrets, 'skills', 'leak'), `${CANARY} folder`, `${CANARY} folder body`);
  mkdirSync(join(repo, '.zot'), { recursive: true });
  symlinkSync(join(secrets, 'skills'), join(repo, '.zot', 'skills'));
  // .claude/skills/x/SKILL.md -> a file outside.
  skill(join(secrets, 'one'), `${CANARY} file`, `${CANARY} file body`);
  mkdirSync(join(repo, '.claude', 'skills', 'x'), { recursive: true });
  symlinkSync(join(secrets, 'one', 'SKILL.md'), join(repo, '.claude', 'skills', 'x', 'SKILL.md'));
  // A linked skill inside the project still loads.
  skill(join(repo, 'shared', 'fine'), 'a fine skill', 'FINE BODY');
  mkdirSync(join(repo, '.agents', 'skills'), { recursive: true });
  symlinkSync(join(repo, 'shared', 'fine'), join(repo, '.agents', 'skills', 'fine'));
  const from = llm.requests.length;
  llm.script(
    { toolCalls: [{ name: 'skill', args: { name: 'leak' } }] },
    { toolCalls: [{ name: 'skill', args: { name: 'fine' } }] },
    { text: 'done' },
  );
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi'], {
    home: box.home,
    cwd: repo,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(
    result.stderr.includes(
      `${join(repo, '.zot', 'skills')} leads to ${join(secrets, 'skills')}, outside ${repo}`,
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(
      `${join(repo, '.claude', 'skills', 'x', 'SKILL.md')} leads to ${join(secrets, 'one', 'SKILL.md')}, outside ${repo}`,
    ),
    result.stderr,
  );
  const sent = bodiesSince(from);
  assert.ok(!sent.includes(CANARY), 'no description or body of theirs reached the provider');
  assert.match(sent, /unknown skill \\"leak\\"/, 'the linked folder is not in the catalog');
  assert.match(sent, /FINE BODY/, 'a link inside the project loads');
});

test(
  'a FIFO as AGENTS.md, SKILL.md or extension.json: zot starts, warns and answers',
  { skip: process.platform === 'win32' },
  async (t) => {
    const { box, repo } = setup(t);
    mkfifo(join(repo, 'AGENTS.md'));
    mkdirSync(join(repo, '.zot', 'skills', 'stuck'), { recursive: true });
    mkfifo(join(repo, '.zot', 'skills', 'stuck', 'SKILL.md'));
    mkdirSync(join(repo, '.zot', 'extensions', 'stuck'), { recursive: true });
    mkfifo(join(repo, '.zot', 'extensions', 'stuck', 'extension.json'));
    llm.script({ text: 'still here' });
    const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi'], {
      home: box.home,
      cwd: repo,
      // Before the fix, open() of the FIFO never returned: the guard turns that into a failure.
      timeoutMs: hangGuard(20_000),
    });
    assert.equal(result.stdout, 'still here\n', result.stderr);
    for (const fifo of [
      join(repo, 'AGENTS.md'),
      join(repo, '.zot', 'skills', 'stuck', 'SKILL.md'),
      join(repo, '.zot', 'extensions', 'stuck', 'extension.json'),
    ]) {
      assert.ok(
        result.stderr.includes(`${fifo} is a FIFO; only regular files are read`),
        `a warning names ${fifo}:\n${result.stderr}`,
      );
    }
  },
);
