// The frame memo must draw exactly what pi-tui draws without it, and must leave a pi-tui whose
// private methods changed alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text, TUI } from '@mariozechner/pi-tui';
import { memoizeFrames } from './frame-memo.js';
import type { SettledLog } from './settled-log.js';
import { chatFrame, GrowingBlock } from './testing/chat-frame.js';
import { VirtualTerminal } from './testing/virtual-terminal.js';

async function draw(memo: boolean): Promise<{ screen: string[]; bytes: number }> {
  const terminal = new VirtualTerminal({ columns: 40, rows: 6, scrollback: 100 });
  const tui = new TUI(terminal);
  assert.equal(memo ? memoizeFrames(tui) : true, true, 'pi-tui still has the patched methods');
  const texts: Text[] = [];
  for (let i = 0; i < 20; i++) {
    const text = new Text(`line ${i} \x1b[1mbold\x1b[22m`, 0, 0);
    texts.push(text);
    tui.addChild(text);
  }
  // Not started: no timer draws in between, so both runs write exactly the same frames.
  const render = (tui as unknown as { doRender(): void }).doRender.bind(tui);
  render();
  for (let frame = 0; frame < 10; frame++) {
    texts.at(-1)!.setText(`last line, frame ${frame}`);
    render();
  }
  await terminal.flush();
  const result = { screen: terminal.allLines(), bytes: terminal.bytesWritten };
  tui.stop();
  terminal.dispose();
  return result;
}

test('with the memo the terminal receives the same bytes and shows the same lines', async () => {
  const plain = await draw(false);
  const memo = await draw(true);
  assert.deepEqual(memo.screen, plain.screen);
  assert.equal(memo.bytes, plain.bytes);
  assert.match(memo.screen.join('\n'), /last line, frame 9/);
});

test('a pi-tui whose frame steps changed is left unpatched, with one note, and draws as before', async () => {
  const terminal = new VirtualTerminal({ columns: 40, rows: 4 });
  const tui = new TUI(terminal);
  // A stand-in for an upgrade: applyLineResets takes another argument now.
  type Steps = { applyLineResets(lines: string[], extra?: unknown): string[] };
  const inherited = (tui as unknown as Steps).applyLineResets;
  const changed = function (this: TUI, lines: string[], _extra?: unknown) {
    return inherited.call(this, lines);
  };
  (tui as unknown as Steps).applyLineResets = changed;
  const notes: string[] = [];
  assert.equal(
    memoizeFrames(tui, (line) => notes.push(line)),
    false,
  );
  assert.equal(
    memoizeFrames(tui, (line) => notes.push(line)),
    false,
  );
  assert.equal(notes.length, 1, 'the note is written once per process');
  assert.match(notes[0]!, /pi-tui changed \(TUI\.applyLineResets takes 2 arguments, not 1;/);
  assert.equal(
    (tui as unknown as { applyLineResets: unknown }).applyLineResets,
    changed,
    'nothing was patched',
  );
  tui.addChild(new Text('still drawn', 0, 0));
  (tui as unknown as { doRender(): void }).doRender();
  await terminal.flush();
  assert.equal(terminal.screen()[0], 'still drawn');
  tui.stop();
  terminal.dispose();
});

test('a growing transcript: every frame holds the lines pi-tui makes without the memo', async () => {
  // The chat's shape (testing/chat-frame.ts): blocks stream, settle, change early, go away,
  // and the width changes.
  const screens = [false, true].map((memo) => {
    const terminal = new VirtualTerminal({ columns: 40, rows: 8, scrollback: 400 });
    const tui = new TUI(terminal);
    if (memo) assert.equal(memoizeFrames(tui), true);
    const { root, log, tick } = chatFrame();
    root.mount(tui);
    const internals = tui as unknown as { doRender(): void; previousLines: string[] };
    return { terminal, tui, log, internals, next: tick };
  });
  const blocks: GrowingBlock[][] = [[], []];
  const step = (change: (log: SettledLog, blocks: GrowingBlock[]) => void, width?: number) => {
    screens.forEach((screen, k) => {
      screen.next();
      change(screen.log, blocks[k]!);
      if (width !== undefined) screen.terminal.resize(width, 8);
      screen.internals.doRender();
    });
    assert.deepEqual(screens[1]!.internals.previousLines, screens[0]!.internals.previousLines);
  };
  for (let i = 0; i < 80; i++) {
    step((log, list) => {
      const live = list.at(-1);
      if (i % 7 === 0 || !live) {
        if (live) log.settle(live);
        list.push(new GrowingBlock(`\x1b[1mblock ${i}\x1b[22m`));
        log.add(list.at(-1)!);
      } else live.text += `\nline ${i} of the answer`;
    });
    if (i === 40) step((log, list) => (log.changed(list[1]!), (list[1]!.text = 'changed early')));
    if (i === 50) step((log, list) => log.remove(list[3]!));
    if (i === 60) step(() => {}, 30);
  }
  for (const { terminal } of screens) await terminal.flush();
  assert.deepEqual(screens[1]!.terminal.allLines(), screens[0]!.terminal.allLines());
  assert.match(screens[1]!.terminal.allLines().join('\n'), /line 79 of the answer/);
  for (const { tui, terminal } of screens) {
    tui.stop();
    terminal.dispose();
  }
});
