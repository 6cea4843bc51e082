// End-to-end: permission rules against a model that attacks them. The fake LLM asks for real
// tool calls; every attack must be refused (denied, or asked and then denied where nobody can
// answer), and what it would have done must not have happened.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc } from './support/rpc-client.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type Line = Record<string, unknown> & { type: string };
const bash = (id: string, command: string) => ({ id, name: 'bash', args: { command } });

/** A sandbox whose HOME has ~/.ssh/id_rsa, and a project with a link to it and files to lose. */
function attackBox() {
  const box = makeSandbox();
  const userHome = join(box.home, '..', 'user-home'); // the HOME support/zot.ts gives zot
  mkdirSync(join(userHome, '.ssh'), { recursive: true });
  writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  symlinkSync(join(userHome, '.ssh'), join(box.project, 'keys'));
  mkdirSync(join(box.project, 'x'));
  writeFileSync(join(box.project, 'x', 'keep'), 'keep me');
  return { ...box, userHome };
}

function resultsById(lines: Line[]): Map<string, Line> {
  return new Map(lines.filter((l) => l.type === 'tool_result').map((l) => [String(l.id), l]));
}

test('deny rules hold against compound commands, substitutions, wrappers, redirections and links', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  // Each attack ends with `touch ranN`: if any part ran, the marker exists.
  const attacks: Array<[string, string]> = [
    ['a1', 'git status && rm -rf x; touch ran1'],
    ['a2', 'git status; curl http://127.0.0.1:9/evil; touch ran2'],
    ['a3', 'echo $(rm -rf x); touch ran3'],
    ['a4', 'echo `rm -rf x`; touch ran4'],
    ['a5', "bash -c 'rm -rf x'; touch ran5"],
    ['a6', 'eval "rm -rf x"; touch ran6'],
    ['a7', 'find . -name keep -exec rm {} \\; ; touch ran7'],
    ['a8', 'echo x/keep | xargs rm; touch ran8'],
    ['a9', 'echo owned > ~/.bashrc; touch ran9'],
    ['a10', 'cat < keys/id_rsa > stolen; touch ran10'],
    ['a11', 'sudo rm -rf x; touch ran11'],
    ['a12', 'X=rm; $X -rf x; touch ran12'],
  ];
  llm.script(
    {
      toolCalls: [
        ...attacks.map(([id, command]) => bash(id, command)),
        { id: 'r1', name: 'read', args: { path: 'keys/id_rsa' } },
        { id: 'w1', name: 'write', args: { path: '~/.profile', content: 'owned' } },
        bash('ok', 'echo fine > allowed.txt'),
      ],
    },
    { text: 'done' },
  );
  const result = await runZot(
    [
      ...fakeLlmFlags(llm.url),
      '--json',
      '--no-session',
      '--deny',
      'bash(rm *)',
      '--deny',
      'bash(curl *)',
      '--deny',
      'write(~/**)',
      '--deny',
      'read(~/.ssh/**)',
      'attack',
    ],
    { home: box.home, cwd: box.project },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = jsonLines(result.stdout) as Line[];
  const results = resultsById(lines);
  for (const [id, command] of attacks) {
    const line = results.get(id);
    assert.equal(line?.is_error, true, `${command} must be refused`);
    assert.match(JSON.stringify(line?.content), /not run/, command);
  }
  for (let n = 1; n <= attacks.length; n++) {
    assert.equal(existsSync(join(box.project, `ran${n}`)), false, `attack ${n} ran`);
  }
  assert.equal(readFileSync(join(box.project, 'x', 'keep'), 'utf8'), 'keep me');
  assert.equal(existsSync(join(box.userHome, '.bashrc')), false);
  assert.equal(existsSync(join(box.project, 'stolen')), false);
  assert.equal(results.get('r1')?.is_error, true, 'the read through the link was refused');
  assert.doesNotMatch(JSON.stringify(results.get('r1')?.content), /PRIVATE KEY/);
  assert.equal(existsSync(join(box.userHome, '.profile')), false);
  // A command no rule touches still runs.
  assert.equal(results.get('ok')?.is_error, false);
  assert.equal(readFileSync(join(box.project, 'allowed.txt'), 'utf8'), 'fine\n');
  // Each refusal is a permission event naming its rule and source.
  const refusals = lines.filter((l) => l.type === 'permission');
  const first = refusals.find((l) => l.tool_id === 'a1');
  assert.equal(first?.decision, 'deny');
  assert.equal(first?.rule, 'bash(rm *)');
  assert.equal(first?.source, 'cli');
  const link = refusals.find((l) => l.tool_id === 'r1');
  assert.equal(link?.rule, 'read(~/.ssh/**)');
  // What cannot be read (a variable as the command) is asked about: nobody can answer here.
  const hidden = refusals.find((l) => l.tool_id === 'a12');
  assert.match(String(hidden?.reason), /nobody can answer/);
});

test('an allowlist (--no-yolo) runs only what its rules name, part by part', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  const attacks: Array<[string, string]> = [
    ['b1', 'echo hi && touch ran1'],
    ['b2', 'echo hi; touch ran2'],
    ['b3', 'echo $(touch ran3)'],
    ['b4', 'echo `touch ran4`'],
    ['b5', "bash -c 'touch ran5'"],
    ['b6', "eval 'touch ran6'"],
    ['b7', 'find . -maxdepth 0 -exec touch ran7 \\;'],
    ['b8', 'echo ran8 | xargs touch'],
    ['b9', 'echo owned > ~/.bashrc'],
    ['b10', 'echo hi > ran10'],
    ['b11', 'env touch ran11'],
  ];
  llm.script(
    { toolCalls: [...attacks.map(([id, command]) => bash(id, command)), bash('ok', 'echo hi')] },
    { text: 'done' },
  );
  const result = await runZot(
    [
      ...fakeLlmFlags(llm.url),
      '--json',
      '--no-session',
      '--no-yolo',
      '--allow',
      'bash(echo *)',
      'go',
    ],
    { home: box.home, cwd: box.project },
  );
  assert.equal(result.code, 0, result.stderr);
  const results = resultsById(jsonLines(result.stdout) as Line[]);
  for (const [id, command] of attacks) {
    assert.equal(results.get(id)?.is_error, true, `${command} must be refused`);
  }
  for (let n = 1; n <= attacks.length; n++) {
    assert.equal(existsSync(join(box.project, `ran${n}`)), false, `attack ${n} ran`);
  }
  assert.equal(existsSync(join(box.userHome, '.bashrc')), false);
  assert.equal(results.get('ok')?.is_error, false, 'echo hi is allowed');
  // The refusal says how to allow the call.
  assert.match(JSON.stringify(results.get('b10')?.content), /--allow/);
});

test('print mode: an ask rule is a deny that names the rule and says how to allow it', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  llm.script({ toolCalls: [bash('p1', 'touch pushed')] }, { text: 'done' });
  const result = await runZot(
    [...fakeLlmFlags(llm.url), '-p', '--no-session', '--ask', 'bash(touch *)', 'go'],
    { home: box.home, cwd: box.project },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(box.project, 'pushed')), false);
  assert.match(result.stderr, /bash\(touch \*\)/);
  assert.match(result.stderr, /nobody can answer/);
});

test('RPC: an ask rule asks through confirm_request, naming the rule; the answer is audited', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--ask', 'bash(touch *)'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => client.close());
  llm.script({ toolCalls: [bash('q1', 'touch no'), bash('q2', 'touch yes')] }, { text: 'done' });
  await client.request('prompt', { message: 'go' });
  const first = await client.waitFor((line) => line.type === 'confirm_request');
  assert.equal(first.rule, 'bash(touch *)');
  await client.request('confirm', { tool_id: 'q1', decision: 'deny' });
  await client.waitFor((line) => line.type === 'confirm_request' && line.tool_id === 'q2');
  await client.request('confirm', { tool_id: 'q2', decision: 'allow' });
  await client.waitFor((line) => line.type === 'done');
  assert.equal(existsSync(join(box.project, 'no')), false);
  assert.equal(existsSync(join(box.project, 'yes')), true);
  const audit = client.lines
    .filter((line) => line.type === 'permission')
    .map((line) => `${line.tool_id} ${line.decision} ${line.source}`);
  assert.deepEqual(audit, ['q1 ask cli', 'q1 deny dialog', 'q2 ask cli', 'q2 allow dialog']);
});

test('rule sources: a bad flag is a usage error; a project file restricts, and allows once trusted', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  const bad = await runZot(['-p', '--allow', 'edit(src/**/../../**)', 'x'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--allow "edit\(src\/\*\*\/\.\.\/\.\.\/\*\*\)": .*after a wildcard/);

  mkdirSync(join(box.project, '.zot'));
  writeFileSync(
    join(box.project, '.zot', 'settings.json'),
    JSON.stringify({
      permissions: { allow: ['bash(touch *)'], deny: ['bash(rm *)', 'read(oops'] },
    }),
  );
  const run = async (id: string, command: string) => {
    llm.script({ toolCalls: [bash(id, command)] }, { text: 'done' });
    return runZot([...fakeLlmFlags(llm.url), '--json', '--no-session', '--no-yolo', 'go'], {
      home: box.home,
      cwd: box.project,
    });
  };
  const untrusted = await run('t1', 'touch first');
  assert.match(untrusted.stderr, /allow rules "bash\(touch \*\)" are ignored/);
  // the bad deny rule fails closed for its tool, and says so
  assert.match(untrusted.stderr, /invalid deny rule "read\(oops".*every read call is denied/);
  assert.equal(existsSync(join(box.project, 'first')), false);

  const trust = await runZot(['permissions', 'trust'], { home: box.home, cwd: box.project });
  assert.equal(trust.code, 0, trust.stderr);
  const trusted = await run('t2', 'touch second');
  assert.doesNotMatch(trusted.stderr, /are ignored/);
  assert.equal(existsSync(join(box.project, 'second')), true);

  // a changed allow list needs a new trust
  writeFileSync(
    join(box.project, '.zot', 'settings.json'),
    JSON.stringify({ permissions: { allow: ['bash(touch *)', 'bash'] } }),
  );
  const changed = await run('t3', 'touch third');
  assert.match(changed.stderr, /changed since you trusted them/);
  assert.equal(existsSync(join(box.project, 'third')), false);

  const list = await runZot(['permissions'], { home: box.home, cwd: box.project });
  assert.match(list.stdout, /allow {2}bash\(touch \*\) {2}\(project .*ignored: not trusted\)/);
});

test('"always allow" writes the narrowest rule to the user file; /permissions lists and removes it', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo', '--deny', 'bash(rm *)'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => client.close());
  llm.script({ toolCalls: [bash('s1', 'touch made')] }, { text: 'done' });
  await client.request('prompt', { message: 'go' });
  await client.waitFor((line) => line.type === 'confirm_request' && line.tool_id === 's1');
  await client.request('confirm', { tool_id: 's1', decision: 'allow_always_user' });
  await client.waitFor((line) => line.type === 'done');
  assert.equal(existsSync(join(box.project, 'made')), true);
  const audit = client.lines.filter((line) => line.type === 'permission');
  assert.match(String(audit.at(-1)?.reason), /always: added "bash\(touch made\)"/);
  const config = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
  assert.deepEqual(config.permissions, { allow: ['bash(touch made)'] });

  // The same call now runs without a question; another one is still asked about.
  const from = client.lines.length;
  llm.script({ toolCalls: [bash('s2', 'touch made')] }, { text: 'done' });
  await client.request('prompt', { message: 'again' });
  await client.waitFor((line) => line.type === 'done', undefined, from);
  assert.equal(
    client.lines.slice(from).some((line) => line.type === 'confirm_request'),
    false,
  );

  const list = await client.request('command', { text: '/permissions' });
  const shown = await client.waitFor((line) => line.type === 'ext_display', undefined, from);
  assert.ok(list);
  assert.match(String(shown.text), /1\. deny {2}bash\(rm \*\) {2}\(cli\)/);
  assert.match(String(shown.text), /2\. allow bash\(touch made\) {2}\(user: .*config\.json\)/);
  assert.match(String(shown.text), /allow bash: touch made \(dialog\)/);

  const at = client.lines.length;
  await client.request('command', { text: '/permissions remove 2' });
  const removed = await client.waitFor((line) => line.type === 'ext_display', undefined, at);
  assert.match(String(removed.text), /removed allow rule "bash\(touch made\)" from .*config\.json/);
  const after = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
  assert.deepEqual(after.permissions, { allow: [] });
});

test('"always allow" for the project writes .zot/settings.json and pins its trust, so the rule counts next run', async (t) => {
  const box = attackBox();
  t.after(() => box.cleanup());
  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-yolo'], {
    home: box.home,
    cwd: box.project,
  });
  t.after(() => client.close());
  llm.script({ toolCalls: [bash('p1', 'touch one')] }, { text: 'done' });
  await client.request('prompt', { message: 'go' });
  await client.waitFor((line) => line.type === 'confirm_request' && line.tool_id === 'p1');
  await client.request('confirm', { tool_id: 'p1', decision: 'allow_always_project' });
  await client.waitFor((line) => line.type === 'done');
  await client.close();
  const settings = JSON.parse(readFileSync(join(box.project, '.zot', 'settings.json'), 'utf8'));
  assert.deepEqual(settings.permissions, { allow: ['bash(touch one)'] });
  rmSync(join(box.project, 'one'));
  llm.script({ toolCalls: [bash('p2', 'touch one')] }, { text: 'done' });
  const next = await runZot(
    [...fakeLlmFlags(llm.url), '-p', '--no-session', '--no-yolo', 'again'],
    { home: box.home, cwd: box.project },
  );
  assert.equal(next.code, 0, next.stderr);
  assert.doesNotMatch(next.stderr, /ignored/);
  assert.equal(existsSync(join(box.project, 'one')), true);
});
