// The keybindings file: each entry checked on its own (a bad one named and skipped, the rest
// applied), the file itself bounded and never fatal; the manager it builds drives the app's
// keys and pi-tui's editor alike.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { getKeybindings } from '@mariozechner/pi-tui';
import {
  installKeybindings,
  keyProblem,
  MAX_KEYBINDINGS_BYTES,
  parseKeybindings,
  readKeybindings,
} from './keybindings.js';
import { hotkeysText, keysHelp } from './hotkeys.js';

const FILE = '/home/u/.local/state/zot/keybindings.json';

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'zot-keys-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('key names: modifiers and keys pi-tui can match pass; others say what is wrong', () => {
  for (const key of [
    'ctrl+p',
    'shift+ctrl+p',
    'alt+enter',
    'shift+tab',
    'f5',
    'pageUp',
    'ctrl+]',
    '+',
  ]) {
    assert.equal(keyProblem(key), undefined, key);
  }
  assert.match(keyProblem('ctl+p')!, /"ctl" is not a modifier/);
  assert.match(keyProblem('ctrl+ctrl+p')!, /"ctrl" is given twice/);
  assert.match(keyProblem('ctrl+pp')!, /"pp" is not a key/);
  assert.match(keyProblem('')!, /"" is not a key/);
});

test('a file with good and bad entries: the good apply, each bad one is named and skipped', () => {
  const parsed = parseKeybindings(
    JSON.stringify({
      'app.model.next': 'alt+m',
      'app.exit': [],
      'tui.editor.cursorUp': ['up', 'ctrl+k'],
      'app.nothing': 'ctrl+x',
      'app.clear': 'ctrl+shft+c',
      'app.suspend': 42,
      'app.thinking.cycle': Array(9).fill('f1'),
    }),
    FILE,
  );
  assert.deepEqual(parsed.bindings, {
    'app.model.next': ['alt+m'],
    'app.exit': [],
    'tui.editor.cursorUp': ['up', 'ctrl+k'],
  });
  assert.deepEqual(parsed.problems, [
    `${FILE}: "app.nothing" is not an action (/hotkeys lists them); skipped`,
    `${FILE}: "app.clear": "ctrl+shft+c": "shft" is not a modifier (ctrl, shift, alt, super); skipped`,
    `${FILE}: "app.suspend": 42 is not a key or a list of keys; skipped`,
    `${FILE}: "app.thinking.cycle": 9 keys, at most 8; skipped`,
  ]);
});

test('a file that is not JSON, or not an object, leaves the defaults and says why', () => {
  const broken = parseKeybindings('{"app.exit": ', FILE);
  assert.deepEqual(broken.bindings, {});
  assert.match(
    broken.problems[0]!,
    /keybindings\.json: not valid JSON \(.+\); using the default keys$/,
  );
  const list = parseKeybindings('["ctrl+p"]', FILE);
  assert.match(list.problems[0]!, /must be a JSON object of action ids to keys/);
  // An inherited name is not an action.
  const proto = parseKeybindings('{"toString": "ctrl+p", "__proto__": "ctrl+q"}', FILE);
  assert.deepEqual(proto.bindings, {});
  assert.equal(proto.problems.length, 2);
});

test('reading: no file is no problem; a directory, or a file over the bound, is one', () => {
  withDir((dir) => {
    assert.deepEqual(readKeybindings(join(dir, 'keybindings.json')), {
      bindings: {},
      problems: [],
    });
    mkdirSync(join(dir, 'as-dir.json'));
    const directory = readKeybindings(join(dir, 'as-dir.json'));
    assert.match(
      directory.problems[0]!,
      /as-dir\.json is a directory; .*; using the default keys$/,
    );
    const big = join(dir, 'big.json');
    writeFileSync(big, `{"app.exit": "${'x'.repeat(MAX_KEYBINDINGS_BYTES)}"}`);
    assert.match(
      readKeybindings(big).problems[0]!,
      /big\.json: over 64 KiB; using the default keys/,
    );
  });
});

test('installed: the app keys and the editor follow the file; clashes between app actions are said', () => {
  withDir((dir) => {
    const file = join(dir, 'keybindings.json');
    writeFileSync(
      file,
      JSON.stringify({ 'app.model.next': 'ctrl+o', 'tui.editor.cursorLineStart': 'alt+a' }),
    );
    const installed = installKeybindings(file);
    try {
      assert.deepEqual(installed.manager.getKeys('app.model.next'), ['ctrl+o']);
      // pi-tui's editor reads the same manager.
      assert.equal(getKeybindings(), installed.manager);
      assert.equal(getKeybindings().matches('\x1ba', 'tui.editor.cursorLineStart'), true);
      assert.equal(getKeybindings().matches('\x01', 'tui.editor.cursorLineStart'), false);
      assert.deepEqual(installed.problems, [
        `${file}: ctrl+o is bound to app.tools.expand and app.model.next; app.tools.expand takes it`,
      ]);
      const listed = hotkeysText(file, installed.problems, installed.manager);
      assert.match(listed, /ctrl\+o\s+next model \(of the ready providers\) · app\.model\.next/);
      assert.match(listed, /alt\+a\s+Move to line start · tui\.editor\.cursorLineStart/);
      assert.ok(listed.includes(`Change them in ${file}`), listed);
      assert.ok(listed.includes('Problems in that file:'), listed);
      assert.match(keysHelp(installed.manager), /ctrl\+o\s+next model/);
    } finally {
      installKeybindings(undefined);
    }
  });
});
