// zot's own skills: the headers known in code are what the SKILL.md files say (parsed as YAML).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUILTIN_SKILL_HEADERS, builtinSkillsDir } from './builtin.js';
import { loadYaml, readSkillFile } from './skill-file.js';

test('each built-in skill file parses to the header zot lists without parsing it', async () => {
  const dir = builtinSkillsDir();
  assert.ok(dir, 'the skills directory is found from the build');
  await loadYaml();
  const onDisk = readdirSync(dir).sort();
  assert.deepEqual(onDisk, BUILTIN_SKILL_HEADERS.map((h) => h.name).sort());
  for (const header of BUILTIN_SKILL_HEADERS) {
    const parsed = readSkillFile(join(dir, header.name, 'SKILL.md'));
    assert.ok(!('error' in parsed), JSON.stringify(parsed));
    assert.deepEqual({ name: parsed.name, description: parsed.description }, { ...header });
  }
});
