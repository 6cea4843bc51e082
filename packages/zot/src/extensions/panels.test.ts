// Panel keys are paced: the next key goes out once the extension rendered after the previous
// one (or KEY_PACE_MS passed), so an extension that handles keys concurrently still sees them
// in the order typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningExtension } from './extension.js';
import { KEY_PACE_MS, PanelModel } from './panels.js';

/** An owner that records what it was sent. */
function owner() {
  const sent: Array<Record<string, unknown>> = [];
  const logged: string[] = [];
  const fake = {
    name: 'todo',
    running: true,
    send: (frame: Record<string, unknown>) => void sent.push(frame),
    log: { write: (line: string) => void logged.push(line) },
  };
  return { fake, extension: fake as unknown as RunningExtension, sent };
}

function typed(sent: Array<Record<string, unknown>>): string {
  return sent
    .filter((frame) => frame.type === 'panel_key')
    .map((frame) => (frame.key === 'rune' ? frame.text : `<${String(frame.key)}>`))
    .join('');
}

test('keys typed at once go out one per render, in order', () => {
  const panels = new PanelModel(() => undefined);
  const { extension, sent } = owner();
  panels.open(extension, { id: 'p', title: 'Todos' });
  for (const ch of 'buy milk') assert.deepEqual(panels.key('p', 'rune', ch), { ok: true });
  assert.deepEqual(panels.key('p', 'enter'), { ok: true });
  assert.equal(typed(sent), 'b', 'one key in flight');
  for (let i = 0; i < 20 && typed(sent).length < 'buy milk<enter>'.length; i++)
    panels.render(extension, { type: 'panel_render', panel_id: 'p', lines: [typed(sent)] });
  assert.equal(typed(sent), 'buy milk<enter>');
});

test('an extension that never renders still gets every key, KEY_PACE_MS apart', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const panels = new PanelModel(() => undefined);
  const { extension, sent } = owner();
  panels.open(extension, { id: 'p' });
  for (const ch of 'abc') panels.key('p', 'rune', ch);
  assert.equal(typed(sent), 'a');
  t.mock.timers.tick(KEY_PACE_MS - 1);
  assert.equal(typed(sent), 'a', 'not before KEY_PACE_MS');
  t.mock.timers.tick(1);
  assert.equal(typed(sent), 'ab');
  t.mock.timers.tick(KEY_PACE_MS);
  assert.equal(typed(sent), 'abc');
});

test('closing the panel drops the keys still waiting; a new panel starts unpaced', () => {
  const panels = new PanelModel(() => undefined);
  const { extension, sent } = owner();
  panels.open(extension, { id: 'p' });
  for (const ch of 'xyz') panels.key('p', 'rune', ch);
  assert.deepEqual(panels.key('p', 'esc'), { ok: true });
  assert.equal(sent.at(-1)?.type, 'panel_close');
  panels.open(extension, { id: 'q' });
  panels.key('q', 'rune', 'n');
  assert.equal(typed(sent), 'xn', 'y and z went with the closed panel');
});
