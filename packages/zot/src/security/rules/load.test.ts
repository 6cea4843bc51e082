import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_SETTINGS_BYTES, readSettingsFile, rulesFromFile, rulesFromSettings } from './load.js';

const dir = mkdtempSync(join(tmpdir(), 'zot-rules-load-'));
const context = { root: dir, home: dir };

test('a settings file that is a FIFO, too large or not JSON is refused at once, never waited on', () => {
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const read = readSettingsFile(fifo);
  assert.equal(read.ok, false);
  const big = join(dir, 'big.json');
  writeFileSync(big, `{"x":"${'a'.repeat(MAX_SETTINGS_BYTES)}"}`);
  assert.match(String((readSettingsFile(big) as { error: string }).error), /larger than/);
  // unreadable means every tool call is denied: the file may have held deny rules
  const loaded = rulesFromFile(fifo, 'project', context);
  assert.equal(loaded.rules.length, 1);
  assert.equal(loaded.rules[0]!.action, 'deny');
  assert.equal(loaded.rules[0]!.tool, '*');
  assert.match(loaded.problems[0]!, /every tool call is denied/);
  assert.equal(readSettingsFile(join(dir, 'absent.json')).ok, true);
});

test('bad entries: allow rules are dropped, deny and ask rules fail closed for their tool', () => {
  const loaded = rulesFromSettings(
    { allow: ['bash(', 'read'], ask: ['edit(a/**/../b)'], deny: [42, 'write(x'], extra: [] },
    'settings.json',
    'project',
    context,
  );
  const summary = loaded.rules.map((rule) => `${rule.action} ${rule.tool}`);
  assert.deepEqual(summary, ['allow read', 'ask edit', 'deny *', 'deny write']);
  assert.equal(loaded.problems.length, 5);
  assert.ok(loaded.problems.some((p) => p.includes('unknown key "permissions.extra"')));
  assert.ok(loaded.problems.some((p) => p.includes('invalid allow rule "bash("')));
});
