// The notes model under a flood: bounded, newest kept, in order, whatever the batch trimming.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NotesModel } from './notes.js';

test('a flood keeps exactly the newest 200 notes, oldest first, after every add', () => {
  const model = new NotesModel();
  for (let i = 0; i < 1000; i++) {
    model.add({ extension: i % 2 ? 'odd' : 'even', kind: 'notify', level: 'info', text: `${i}` });
    const shown = model.notes;
    assert.equal(shown.length, Math.min(i + 1, 200));
    assert.equal(shown.at(-1)!.text, `${i}`);
    assert.equal(shown[0]!.text, `${Math.max(0, i - 199)}`);
  }
});

test('clearAll names only extensions with notes still shown; clearFrom leaves the others', () => {
  const cleared: string[] = [];
  const model = new NotesModel((extension) => cleared.push(extension));
  model.add({ extension: 'early', kind: 'display', level: 'info', text: 'scrolled away' });
  for (let i = 0; i < 300; i++)
    model.add({ extension: 'loud', kind: 'notify', level: 'warn', text: `${i}` });
  model.add({ extension: 'quiet', kind: 'notify', level: 'error', text: 'last' });
  model.clearFrom('loud');
  assert.deepEqual(
    model.notes.map((note) => note.text),
    ['last'],
  );
  assert.deepEqual(model.clearAll(), ['quiet']);
  assert.deepEqual(cleared, ['quiet']);
  assert.equal(model.notes.length, 0);
});
