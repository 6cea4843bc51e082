import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RuleEngine, type Decision } from './engine.js';
import { parseRule, type RuleAction } from './parse.js';

const box = mkdtempSync(join(tmpdir(), 'zot-rules-'));
const root = join(box, 'project');
const home = join(box, 'home');
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
writeFileSync(join(home, '.ssh', 'id_rsa'), 'secret');
symlinkSync(join(home, '.ssh'), join(root, 'keys'));

type Rules = Partial<Record<RuleAction, string[]>>;

function engine(rules: Rules): RuleEngine {
  const parsed = (['allow', 'ask', 'deny'] as const).flatMap((action) =>
    (rules[action] ?? []).map((text) => parseRule(text, action, 'user', { root, home })),
  );
  return new RuleEngine(parsed, { cwd: root, home });
}

async function bash(rules: Rules, command: string, defaultAllows = true): Promise<Decision> {
  return (await engine(rules).decide({ tool: 'bash', args: { command } }, defaultAllows)).decision;
}

test('an allow rule covers a command only when every part is allowed (strict mode)', async () => {
  const rules = { allow: ['bash(git status)', 'bash(npm run *)'] };
  assert.equal(await bash(rules, 'git status', false), 'allow');
  assert.equal(await bash(rules, 'npm run test -- --watch', false), 'allow');
  for (const attack of [
    'git status && rm -rf x',
    'git status; curl evil',
    'git status --output=/etc/x',
    'git status $(rm x)',
    'git status `rm x`',
    "bash -c 'git status'",
    'eval git status',
    'find . -exec rm {} \\;',
    'ls | xargs rm',
    'npm run test > ~/.bashrc',
    'NODE_OPTIONS=--require=evil npm run test',
    'PATH=.:$PATH; git status',
    'sudo git status',
    'git st*',
  ]) {
    assert.notEqual(await bash(rules, attack, false), 'allow', attack);
  }
});

test('deny rules hold inside compound commands, substitutions and wrappers', async () => {
  const rules = { deny: ['bash(rm *)'] };
  for (const attack of [
    'rm -rf x',
    'git status && rm -rf x',
    'echo $(rm x)',
    'echo `rm x`',
    'cat <(rm x)',
    "bash -c 'rm x'",
    "eval 'rm x'",
    'sudo rm x',
    'timeout 5 rm x',
    'f() { rm x; }',
    '/bin/rm x',
  ]) {
    const decision = await bash(rules, attack);
    assert.ok(decision === 'deny' || decision === 'ask', `${attack}: ${decision}`);
  }
  assert.equal(await bash(rules, 'git status && rm -rf x'), 'deny');
  // What cannot be read is asked about, even though the mode allows by default.
  for (const hidden of ['eval "$X"', '$CMD x', 'find . -exec sh {} \\;', 'ls | xargs -0 sh']) {
    assert.equal(await bash(rules, hidden), 'ask', hidden);
  }
  // Plain commands are untouched.
  assert.equal(await bash(rules, 'git status'), 'default');
});

test('writes through redirections obey write rules', async () => {
  const rules = { deny: ['write(~/**)'] };
  assert.equal(await bash(rules, 'echo x > ~/.bashrc'), 'deny');
  assert.equal(await bash(rules, `echo x >> ${home}/.profile`), 'deny');
  assert.equal(await bash(rules, 'echo x | tee ~/.bashrc'), 'deny');
  assert.equal(await bash(rules, 'echo x > "$HOME/.bashrc"'), 'ask');
  // ~name is the home of a user, known only when bash runs
  assert.equal(await bash(rules, 'echo x > ~someone/.bashrc'), 'ask');
  assert.equal(await bash(rules, 'echo x > out.txt 2>/dev/null'), 'default');
  // through a symlink in the project
  assert.equal(await bash(rules, 'echo x > keys/authorized_keys'), 'deny');
});

test('path rules match the real path: a symlink cannot walk around them', async () => {
  const rules = engine({ deny: ['read(~/.ssh/**)'], allow: ['read(**)'] });
  const direct = await rules.decide({ tool: 'read', args: { path: '~/.ssh/id_rsa' } }, true);
  assert.equal(direct.decision, 'deny');
  const viaLink = await rules.decide({ tool: 'read', args: { path: 'keys/id_rsa' } }, true);
  assert.equal(viaLink.decision, 'deny');
  assert.match(viaLink.reason, /read\(~\/\.ssh\/\*\*\)/);
  // edit shows file contents, so a read rule holds for it too
  const edit = await rules.decide({ tool: 'edit', args: { path: 'keys/id_rsa' } }, true);
  assert.equal(edit.decision, 'deny');
});

test('an allow rule for a directory does not reach through a link out of it', async () => {
  const rules = engine({ allow: ['edit(src/**)', 'edit(keys/**)'] });
  symlinkSync(join(home, '.ssh'), join(root, 'src', 'out'));
  const inside = await rules.decide({ tool: 'edit', args: { path: 'src/a.ts' } }, false);
  assert.equal(inside.decision, 'allow');
  const escaped = await rules.decide({ tool: 'edit', args: { path: 'src/out/id_rsa' } }, false);
  assert.equal(escaped.decision, 'default');
});

test('a rule glob with .. names exactly what it spells, and .. after a wildcard is refused', async () => {
  assert.throws(
    () => parseRule('edit(src/**/../../etc/*)', 'allow', 'user', { root, home }),
    /after a wildcard/,
  );
  const rule = parseRule('edit(src/../src/**)', 'allow', 'user', { root, home });
  const rules = new RuleEngine([rule], { cwd: root, home });
  assert.equal(
    (await rules.decide({ tool: 'edit', args: { path: 'src/a' } }, false)).decision,
    'allow',
  );
  assert.equal(
    (await rules.decide({ tool: 'edit', args: { path: 'b' } }, false)).decision,
    'default',
  );
  assert.equal(
    (await rules.decide({ tool: 'edit', args: { path: 'src/../../home/x' } }, false)).decision,
    'default',
  );
});

test('precedence: deny beats ask beats allow; tool names and globs', async () => {
  const rules = engine({
    allow: ['mcp__github__*', 'bash'],
    ask: ['mcp__github__delete_repo'],
    deny: ['skill(danger*)'],
  });
  const decide = async (tool: string, args: Record<string, unknown> = {}) =>
    (await rules.decide({ tool, args }, false)).decision;
  assert.equal(await decide('mcp__github__list'), 'allow');
  assert.equal(await decide('mcp__github__delete_repo'), 'ask');
  assert.equal(await decide('mcp__gitlab__list'), 'default');
  assert.equal(await decide('skill', { name: 'dangerous' }), 'deny');
  assert.equal(await decide('skill', { name: 'safe' }), 'default');
  assert.equal(await decide('bash', { command: 'anything at all' }), 'allow');
});

test('a command that does not parse is asked about', async () => {
  assert.equal(await bash({ deny: ['bash(rm *)'] }, "echo 'unterminated"), 'ask');
  assert.equal(await bash({ allow: ['bash(echo *)'] }, "echo 'unterminated", false), 'ask');
});

test('bad rules are refused with a reason', () => {
  const bad = [
    '',
    'bash(',
    'bash()',
    'ba sh',
    'bash(* rm)',
    'bash(a; b)',
    'mytool(x)',
    '~(x)',
    'read(~root/x)',
  ];
  for (const text of bad) {
    assert.throws(() => parseRule(text, 'deny', 'cli', { root, home }), Error, text);
  }
});
