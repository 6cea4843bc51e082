// Skills and project context files as the model sees them: the system prompt and tool calls the
// fake LLM server recorded, from every source, with their precedence and their failures.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function skill(dir: string, front: string, body = 'Do the thing.') {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\n${front}\n---\n${body}\n`);
}

function setup() {
  const box = makeSandbox();
  const userHome = join(box.home, '..', 'user-home');
  const run = (args: string[]) =>
    runZot([...fakeLlmFlags(llm.url), ...args], { home: box.home, cwd: box.project });
  const system = () => String(llm.requests.at(-1)!.body.system[0].text);
  const tools = () => llm.requests.at(-1)!.body.tools.map((t: { name: string }) => t.name);
  return { box, userHome, run, system, tools };
}

test('every source, in precedence order; shadowed and malformed skills are named', async (t) => {
  const { box, userHome, run, system, tools } = setup();
  t.after(() => box.cleanup());
  const p = box.project;
  skill(join(p, '.zot/skills/deploy'), 'description: ship it (project)');
  skill(join(box.home, 'skills/deploy'), 'description: ship it (user)');
  skill(
    join(box.home, 'skills/review'),
    'name: review\ndescription: >\n  review a change\n  carefully\nallowed-tools: [read, bash]',
  );
  skill(join(p, '.claude/skills/claude-p'), 'description: from ./.claude');
  skill(join(userHome, '.claude/skills/claude-h'), 'description: from ~/.claude');
  skill(join(p, '.agents/skills/agents-p'), 'description: from ./.agents');
  skill(join(userHome, '.agents/skills/agents-h'), 'description: "from ~/.agents: quoted"');
  skill(join(p, '.zot/skills/broken'), 'description: [unclosed');
  skill(join(p, '.zot/skills/nodesc'), 'name: nodesc');
  // A skill-only extension bundle: never spawned, names prefixed with the extension's.
  const kit = join(box.home, 'extensions/kit');
  skill(join(kit, 'skills/lint'), 'description: lint the code');
  skill(join(kit, 'skills/nested/deeper/format'), 'description: format the code');
  writeFileSync(join(kit, 'extension.json'), JSON.stringify({ name: 'kit', skills: ['skills'] }));

  llm.script({ text: 'ok' });
  const result = await run(['-p', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  const prompt = system();
  const listed = [...prompt.matchAll(/^- (\S+): (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
  assert.deepEqual(listed, [
    'deploy: ship it (project)',
    'review: review a change carefully',
    'claude-p: from ./.claude',
    'claude-h: from ~/.claude',
    'agents-p: from ./.agents',
    'agents-h: from ~/.agents: quoted',
    'kit:lint: lint the code',
    'kit:format: format the code',
    'zot-extension: ' +
      'Write, test and install a zot extension (slash commands, tools for the model, interception, panels) with the TypeScript or Python SDK.',
  ]);
  assert.ok(tools().includes('skill'));
  assert.doesNotMatch(prompt, /Do the thing/, 'bodies load on demand only');
  assert.match(
    result.stderr,
    /skill "deploy" in .*home\/skills\/deploy\/SKILL\.md is shadowed by .*\.zot\/skills\/deploy\/SKILL\.md/,
  );
  assert.match(result.stderr, /skipped skill: .*broken\/SKILL\.md: front matter is not valid YAML/);
  assert.match(result.stderr, /skipped skill: .*nodesc\/SKILL\.md: "description" is required/);
});

test('the skill tool returns the body; an unknown name lists the valid ones', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  skill(join(box.project, '.zot/skills/deploy'), 'description: ship it', 'Run make deploy.');
  llm.script(
    { toolCalls: [{ id: 's1', name: 'skill', args: { name: 'deploy' } }] },
    { toolCalls: [{ id: 's2', name: 'skill', args: { name: 'nope' } }] },
    { text: 'done' },
  );
  const result = await run(['-p', 'deploy please']);
  assert.equal(result.code, 0, result.stderr);
  const results = llm.requests
    .at(-1)!
    .body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
    .filter((block: { type: string }) => block.type === 'tool_result');
  assert.match(JSON.stringify(results[0]), /Run make deploy\./);
  assert.match(JSON.stringify(results[0]), /Base directory/);
  assert.equal(results[1].is_error, true);
  assert.match(
    JSON.stringify(results[1]),
    /unknown skill \\"nope\\"; available: deploy, zot-extension/,
  );
});

test('the built-in skill loads through the tool without any other skill', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  llm.script(
    { toolCalls: [{ id: 'b1', name: 'skill', args: { name: 'zot-extension' } }] },
    { text: 'ok' },
  );
  assert.equal((await run(['-p', 'how do I write an extension?'])).code, 0);
  const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
  assert.match(sent, /createExtension/);
});

test('bundle entries cannot escape their extension, not even through a symlink', async (t) => {
  const { box, run, system } = setup();
  t.after(() => box.cleanup());
  const outside = join(box.project, 'outside');
  skill(join(outside, 'secret'), 'description: must not load');
  const kit = join(box.home, 'extensions/kit');
  skill(join(kit, 'skills/ok'), 'description: fine');
  symlinkSync(outside, join(kit, 'skills/escape'));
  writeFileSync(join(kit, 'extension.json'), JSON.stringify({ name: 'kit', skills: ['skills'] }));
  const evil = join(box.home, 'extensions/evil');
  mkdirSync(evil, { recursive: true });
  writeFileSync(
    join(evil, 'extension.json'),
    JSON.stringify({ name: 'evil', skills: ['../../project/outside'] }),
  );
  llm.script({ text: 'ok' });
  const result = await run(['-p', 'hi']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(system(), /- kit:ok: fine/);
  assert.doesNotMatch(system(), /must not load/);
  assert.match(result.stderr, /kit\/skills\/escape leads outside its directory/);
});

test('--no-skill: no tool and no list; --with-skills is accepted and changes nothing', async (t) => {
  const { box, run, system, tools } = setup();
  t.after(() => box.cleanup());
  skill(join(box.project, '.zot/skills/deploy'), 'description: ship it');
  llm.script({ text: 'a' }, { text: 'b' });
  assert.equal((await run(['-p', 'hi', '--no-skill'])).code, 0);
  assert.ok(!tools().includes('skill'));
  assert.doesNotMatch(system(), /Skills|deploy/);
  assert.equal((await run(['-p', 'hi', '--with-skills'])).code, 0);
  assert.match(system(), /- deploy: ship it/);
});

test('/skills lists what is there now, read again each time', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  const first = await run(['-p', '/skills']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^Skills \(1\):/);
  skill(join(box.project, '.zot/skills/deploy'), 'description: ship it\nallowed-tools: bash');
  const second = await run(['-p', '/skills']);
  assert.match(second.stdout, /deploy +ship it \(tools: bash\) \[project\]/);
});

test('context files: AGENTS.md or CLAUDE.md from the repository root down to the cwd, not above', async (t) => {
  const { box, system } = setup();
  t.after(() => box.cleanup());
  const above = dirname(box.project);
  writeFileSync(join(above, 'AGENTS.md'), 'ABOVE THE REPO');
  const repo = join(box.project, 'repo');
  const sub = join(repo, 'pkg', 'sub');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(repo, 'AGENTS.md'), 'ROOT RULES');
  writeFileSync(join(repo, 'CLAUDE.md'), 'ROOT CLAUDE (AGENTS.md wins here)');
  writeFileSync(join(repo, 'pkg', 'CLAUDE.md'), 'PKG CLAUDE');
  writeFileSync(join(sub, 'AGENTS.md'), 'SUB RULES\n' + 'x'.repeat(70 * 1024));
  llm.script({ text: 'a' }, { text: 'b' });
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi', '--no-skill'], {
    home: box.home,
    cwd: sub,
  });
  assert.equal(result.code, 0, result.stderr);
  const prompt = system();
  const order = ['ROOT RULES', 'PKG CLAUDE', 'SUB RULES'].map((text) => prompt.indexOf(text));
  assert.ok(
    order.every((at) => at > 0) && order[0]! < order[1]! && order[1]! < order[2]!,
    String(order),
  );
  assert.match(prompt, new RegExp(`## ${join(repo, 'AGENTS.md').replace(/[.]/g, '\\.')}`));
  assert.doesNotMatch(prompt, /ABOVE THE REPO|ROOT CLAUDE/);
  assert.match(prompt, /\[cut at 64 KiB; read the file for the rest\]/);
  await runZot([...fakeLlmFlags(llm.url), '-p', 'hi', '--no-skill', '--no-context-files'], {
    home: box.home,
    cwd: sub,
  });
  assert.doesNotMatch(system(), /ROOT RULES/);
});

test('project skills are found as AGENTS.md is: from the cwd up to the repository root, the nearest first', async (t) => {
  const { box, system } = setup();
  t.after(() => box.cleanup());
  const above = dirname(box.project);
  skill(join(above, '.zot/skills/above'), 'description: above the repository');
  const repo = join(box.project, 'repo');
  const sub = join(repo, 'pkg', 'sub');
  mkdirSync(join(repo, '.git'), { recursive: true });
  skill(join(repo, '.zot/skills/root-skill'), 'description: from the root', 'Root steps.');
  skill(join(repo, '.zot/skills/shared'), 'description: shared, at the root');
  skill(join(repo, 'pkg/.claude/skills/pkg-claude'), 'description: from pkg/.claude');
  skill(join(sub, '.zot/skills/shared'), 'description: shared, nearest');
  // A skills folder higher up that links out of the repository is refused there too.
  const secrets = join(box.home, 'secrets');
  skill(join(secrets, 'leak'), 'description: must not be read');
  mkdirSync(join(repo, '.agents'));
  symlinkSync(secrets, join(repo, '.agents', 'skills'), 'dir');
  llm.script(
    { toolCalls: [{ id: 'r1', name: 'skill', args: { name: 'root-skill' } }] },
    { text: 'done' },
  );
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi', '--no-context-files'], {
    home: box.home,
    cwd: sub,
  });
  assert.equal(result.code, 0, result.stderr);
  const listed = [...system().matchAll(/^- (\S+): (.*)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
  assert.deepEqual(listed.slice(0, -1), [
    'shared: shared, nearest',
    'root-skill: from the root',
    'pkg-claude: from pkg/.claude',
  ]);
  assert.ok(
    result.stderr.includes(
      `skill "shared" in ${join(repo, '.zot/skills/shared/SKILL.md')} is shadowed by ` +
        join(sub, '.zot/skills/shared/SKILL.md'),
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(
      `${join(repo, '.agents', 'skills')} leads to ${secrets}, outside ${repo}`,
    ),
    result.stderr,
  );
  assert.doesNotMatch(system(), /above the repository|must not be read/);
  assert.match(JSON.stringify(llm.requests.at(-1)!.body.messages), /Root steps\./);
});

test('a home directory inside the project is read once: no skill shadows itself', async (t) => {
  const { box, userHome, system } = setup();
  t.after(() => box.cleanup());
  // A dotfiles repository: the home directory is the project root of everything below it.
  mkdirSync(join(userHome, '.git'), { recursive: true });
  skill(join(userHome, '.claude/skills/mine'), 'description: in ~/.claude');
  const work = join(userHome, 'work');
  mkdirSync(work, { recursive: true });
  llm.script({ text: 'ok' });
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi', '--no-context-files'], {
    home: box.home,
    cwd: work,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(system(), /^- mine: in ~\/\.claude$/m);
  assert.doesNotMatch(result.stderr, /shadowed/);
});

test("a project folder linking to the user's own skills is refused there, and they still load as the user's", async (t) => {
  const { box, userHome, system } = setup();
  t.after(() => box.cleanup());
  skill(join(userHome, '.claude/skills/mine'), 'description: in ~/.claude');
  mkdirSync(join(box.project, '.git'));
  mkdirSync(join(box.project, '.claude'));
  symlinkSync(join(userHome, '.claude/skills'), join(box.project, '.claude/skills'), 'dir');
  llm.script({ text: 'ok' });
  const result = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi', '--no-context-files'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /skipped skills: .*\.claude\/skills leads to .*, outside /);
  assert.match(system(), /^- mine: in ~\/\.claude$/m);
});
