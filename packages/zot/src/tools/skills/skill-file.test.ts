// SKILL.md parsing: what other agents' files look like, and YAML that must not hurt us.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadYaml, parseSkill } from './skill-file.js';

test('front matter as other tools write it; the directory names an unnamed skill', async () => {
  await loadYaml();
  const parsed = parseSkill(
    '\uFEFF---\r\ndescription: "Deploy: the whole thing"\r\nallowed-tools: Read, Bash(git:*)\r\npermissions:\r\n  network: true\r\n---\r\n# Body\r\n',
    'deploy',
  );
  assert.deepEqual(parsed, {
    name: 'deploy',
    description: 'Deploy: the whole thing',
    allowedTools: ['Read', 'Bash(git:*)'],
    permissions: { network: true },
    body: '# Body',
  });
});

test('bad front matter is an error naming the problem, never a throw or a hang', async () => {
  await loadYaml();
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ...Array.from(
      { length: 12 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
    ),
    'description: boom',
  ].join('\n');
  const cases: Array<[string, RegExp]> = [
    ['no front matter', /no front matter/],
    ['---\n- a list\n---\n', /must be a mapping/],
    ['---\ndescription: x\nname: "../x"\n---\n', /"name" must be/],
    ['---\nname: x\n---\n', /"description" is required/],
    ['---\ndescription: x\nallowed-tools: {a: 1}\n---\n', /"allowed-tools" must be/],
    [`---\n${bomb}\n---\n`, /not valid YAML/],
  ];
  for (const [text, expected] of cases) {
    const parsed = parseSkill(text, 'dir');
    assert.ok('error' in parsed, text.slice(0, 30));
    assert.match(parsed.error, expected);
  }
});
