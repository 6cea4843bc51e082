// The interactive mode's controllers against a fake session: keys (with an injected clock),
// commands, the editor's routing, and the prompt history file.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createTheme } from '../../tui/theme.js';
import { CommandsController } from './commands.js';
import { resumable, sessionDetail } from './dialogs.js';
import { appendHistory, HISTORY_LIMIT, loadHistory } from './history.js';
import {
  EXIT_HINT_KEY,
  EXIT_WINDOW_MS,
  KeysController,
  REWIND_HINT_KEY,
  REWIND_WINDOW_MS,
} from './keys.js';
import { Notes } from './notes.js';
import type { InteractiveSession, SlashResult } from '../../contract/front-end.js';
import type { SessionSummary } from '../../contract/summaries.js';

const theme = createTheme(undefined, false);

function fakeSession(overrides: Partial<InteractiveSession> = {}) {
  const calls: string[] = [];
  let busy = false;
  const session = {
    calls,
    setBusy: (value: boolean) => (busy = value),
    get busy() {
      return busy;
    },
    messages: [],
    transcriptPreview: () => undefined,
    loadTranscript: () => 0,
    subscribe: () => () => undefined,
    connectUi: () => () => undefined,
    state: () => {
      throw new Error('not used');
    },
    keyProblem: () => undefined,
    prompt: async (text: string, _images?: unknown, mode?: string) => {
      calls.push(`prompt:${mode ?? 'follow_up'}:${text}`);
    },
    abort: () => void calls.push('abort'),
    cancel: () => {
      calls.push('cancel');
      busy = false;
      return 2;
    },
    idle: async () => void calls.push('idle'),
    commands: () => [],
    runCommand: async (text: string): Promise<SlashResult> => {
      calls.push(`command:${text}`);
      return { kind: 'display', text: `ran ${text}` };
    },
    enableConfirmation: () => undefined,
    answerExtensionQuestions: () => undefined,
    startExtensions: async () => [],
    toolPreview: () => '',
    panelKey: () => ({ ok: true as const }),
    closePanel: () => false,
    skills: async () => undefined,
    skillBody: async () => ({ error: 'not used' }),
    unqueueLast: () => undefined,
    shell: async () => undefined,
    models: () => [],
    setModel: (ref: string) => ({ id: ref, provider: 'anthropic' }),
    reasoningLevel: () => 'off' as const,
    setReasoningLevel: () => undefined,
    sessions: () => [],
    resume: () => undefined,
    renameSession: () => undefined,
    deleteSession: () => undefined,
    providers: () => [],
    login: async () => ({ ok: false as const, error: 'not used' }),
    logout: () => false,
    trustReviews: async () => [],
    decideTrust: async () => ({ errors: [] }),
    listCheckpoints: async () => undefined,
    previewRewind: async () => undefined,
    rewindCode: async () => ({
      ok: false as const,
      reason: 'failed' as const,
      message: 'not used',
    }),
    conversationPoint: () => ({ ok: false as const, kind: 'failed' as const, message: 'not used' }),
    rewindConversation: () => ({ ok: false as const, message: 'not used' }),
    branches: {
      list: () => ({ branches: [], total: 0, head: 0 }),
      switchTo: () => ({ index: 1, messages: 0 }),
      fork: () => ({ path: 'not used', messages: 0 }),
      clone: () => ({ path: 'not used' }),
      merge: () => ({ index: 1, text: '', summary_by: 'none' }),
    },
    ...overrides,
  };
  return session;
}

function keys(session: ReturnType<typeof fakeSession>, start = 0, queued: string[] = []) {
  let now = start;
  let text = '';
  let exits = 0;
  let toggles = 0;
  let rewinds = 0;
  const notes = new Notes(() => undefined);
  const controller = new KeysController({
    session,
    theme,
    notes,
    editor: {
      get text() {
        return text;
      },
      setText: (value) => (text = value),
      isShowingAutocomplete: () => false,
    },
    queued: () => queued,
    toggleExpanded: () => toggles++,
    exit: () => exits++,
    rewind: () => rewinds++,
    now: () => now,
    setTimer: () => ({}),
  });
  return {
    controller,
    get rewinds() {
      return rewinds;
    },
    notes,
    advance: (ms: number) => (now += ms),
    setText: (value: string) => (text = value),
    get text() {
      return text;
    },
    get exits() {
      return exits;
    },
    get toggles() {
      return toggles;
    },
  };
}

test('ctrl+c clears the editor first, then asks for a second press within the window', () => {
  const k = keys(fakeSession());
  k.setText('draft');
  assert.equal(k.controller.handle('\x03'), true);
  assert.equal(k.text, '');
  assert.equal(k.exits, 0);
  k.controller.handle('\x03');
  assert.equal(k.exits, 0);
  assert.match(k.notes.render(80).join('\n'), /press ctrl\+c again to exit/);
  k.advance(EXIT_WINDOW_MS - 1);
  k.controller.handle('\x03');
  assert.equal(k.exits, 1);
  assert.equal(k.notes.has(EXIT_HINT_KEY), false);
});

test('a second ctrl+c after the window only warns again', () => {
  const k = keys(fakeSession());
  k.controller.handle('\x03');
  k.advance(EXIT_WINDOW_MS + 1);
  k.controller.handle('\x03');
  assert.equal(k.exits, 0);
  k.controller.handle('\x03');
  assert.equal(k.exits, 1);
});

test('while busy the ctrl+c hint also says esc cancels; esc cancels turn and queue', () => {
  const session = fakeSession();
  session.setBusy(true);
  const k = keys(session, 0, ['steer this', 'then this']);
  k.controller.handle('\x03');
  assert.match(k.notes.render(80).join('\n'), /esc to cancel/);
  k.setText('half typed');
  assert.equal(k.controller.handle('\x1b'), true);
  assert.deepEqual(session.calls, ['cancel']);
  assert.equal(k.text, 'steer this\nthen this\nhalf typed', 'the queue goes back into the editor');
  assert.match(
    k.notes.render(80).join('\n'),
    /cancelled · 2 queued messages are back in the editor/,
  );
});

test('esc with nothing queued leaves the editor as it is', () => {
  const session = fakeSession({ cancel: () => 0 });
  session.setBusy(true);
  const k = keys(session);
  k.setText('draft');
  k.controller.handle('\x1b');
  assert.equal(k.text, 'draft');
  assert.match(k.notes.render(80).join('\n'), /cancelled/);
  assert.doesNotMatch(k.notes.render(80).join('\n'), /back in the editor/);
});

test("esc when idle cancels nothing but clears the extensions' notes; ctrl+o toggles", () => {
  const session = fakeSession();
  const k = keys(session);
  k.notes.set('ext:kit', '[kit] a note');
  k.notes.set('keys:exit', 'press ctrl+c again to exit');
  k.controller.handle('\x1b');
  assert.deepEqual(session.calls, []);
  assert.equal(k.notes.has('ext:kit'), false);
  assert.equal(k.notes.has('keys:exit'), true, 'only extension notes go');
  k.controller.handle('\x0f');
  assert.equal(k.toggles, 1);
  assert.equal(k.controller.handle('a'), false);
});

test('esc esc on an idle, empty editor opens /rewind; not with text, not while busy, not past the window', () => {
  const session = fakeSession();
  const k = keys(session);
  k.controller.handle('\x1b');
  assert.match(k.notes.render(80).join('\n'), /press esc again to rewind/);
  k.advance(REWIND_WINDOW_MS);
  k.controller.handle('\x1b');
  assert.equal(k.rewinds, 1);
  assert.equal(k.notes.has(REWIND_HINT_KEY), false, 'the hint goes');
  // Past the window the second press only arms again.
  k.controller.handle('\x1b');
  k.advance(REWIND_WINDOW_MS + 1);
  k.controller.handle('\x1b');
  assert.equal(k.rewinds, 1);
  // Text in the editor: Esc is not a rewind.
  k.setText('draft');
  k.controller.handle('\x1b');
  k.controller.handle('\x1b');
  assert.equal(k.rewinds, 1);
  assert.equal(k.text, 'draft');
  // Another key between the two presses: not a rewind.
  k.setText('');
  k.controller.handle('\x1b');
  k.controller.handle('\x0f');
  k.controller.handle('\x1b');
  assert.equal(k.rewinds, 1);
  // While busy Esc cancels, and a second Esc right after does not open the dialog.
  k.controller.handle('\x0f');
  session.setBusy(true);
  k.controller.handle('\x1b');
  assert.equal(session.busy, false);
  k.controller.handle('\x1b');
  assert.equal(k.rewinds, 1);
  assert.deepEqual(session.calls, ['cancel']);
});

function commands(session: ReturnType<typeof fakeSession>) {
  const shown: string[] = [];
  const events: string[] = [];
  const echoed: string[] = [];
  const controller = new CommandsController({
    session,
    theme,
    surface: {
      display: (text, _style, extension) => shown.push(extension ? `[${extension}] ${text}` : text),
      echo: (text) => echoed.push(text),
      insert: (text) => events.push(`insert:${text}`),
      reset: () => events.push('reset'),
      exit: () => events.push('exit'),
      openPanel: (extension, panel) => events.push(`panel:${extension}:${panel.id}`),
    },
  });
  return { controller, shown, events, echoed };
}

test('/exit and /quit exit without asking the runtime', async () => {
  const session = fakeSession();
  const c = commands(session);
  await c.controller.run('/exit');
  await c.controller.run('/QUIT');
  assert.deepEqual(c.events, ['exit', 'exit']);
  assert.deepEqual(session.calls, []);
  assert.deepEqual(c.echoed, []);
});

test("each command line is echoed before it runs; an extension's output is headed with its name", async () => {
  const session = fakeSession({
    runCommand: async () => ({ kind: 'display', extension: 'words', text: 'desserts' }),
  });
  const c = commands(session);
  await c.controller.run('  /reverse stressed ');
  assert.deepEqual(c.echoed, ['/reverse stressed']);
  assert.deepEqual(c.shown, ['[words] desserts']);
});

test('a session-changing command cancels the running turn first and says so', async () => {
  const session = fakeSession();
  session.setBusy(true);
  const c = commands(session);
  await c.controller.run('/new');
  assert.deepEqual(session.calls, ['cancel', 'idle', 'command:/new']);
  assert.match(c.shown[0]!, /cancelled the running turn for \/new/);
  assert.deepEqual(c.events, ['reset']);
  // /model without an argument only shows: nothing is cancelled.
  session.setBusy(true);
  session.calls.length = 0;
  await c.controller.run('/model');
  assert.deepEqual(session.calls, ['command:/model']);
});

test('results: help gets the keys, insert fills the editor, errors are lines, panels open', async () => {
  const results: SlashResult[] = [
    { kind: 'display', text: 'Commands:' },
    { kind: 'insert', extension: 'x', text: 'inserted' },
    { kind: 'error', message: 'boom' },
    { kind: 'error', message: 'already in the chat', reported: true },
    { kind: 'panel', extension: 'todo', panel: { id: 'p' } as never },
    { kind: 'noop' },
  ];
  const session = fakeSession({ runCommand: async () => results.shift()! });
  const c = commands(session);
  await c.controller.run('/help');
  assert.match(c.shown[0]!, /^Keys:[\s\S]*ctrl\+c[\s\S]*Commands:/);
  await c.controller.run('/ins');
  assert.deepEqual(c.events, ['insert:inserted']);
  await c.controller.run('/bad');
  assert.equal(c.shown[1], 'boom');
  await c.controller.run('/compact');
  assert.equal(c.shown.length, 2, 'an error the session reported is not shown twice');
  await c.controller.run('/todo');
  assert.deepEqual(c.events, ['insert:inserted', 'panel:todo:p']);
  await c.controller.run('/nothing');
  assert.equal(c.shown.length, 2);
});

test('history: appended prompts come back oldest first, capped; bad lines are skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zot-history-'));
  try {
    const file = join(dir, 'nested', 'project.jsonl');
    assert.deepEqual(loadHistory(file), []);
    appendHistory(file, 'first');
    appendHistory(file, 'multi\nline');
    assert.deepEqual(loadHistory(file), ['first', 'multi\nline']);
    writeFileSync(file, readFileSync(file, 'utf8') + '{"cut short\n42\n');
    assert.deepEqual(loadHistory(file), ['first', 'multi\nline']);
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) appendHistory(file, `p${i}`);
    const loaded = loadHistory(file);
    assert.equal(loaded.length, HISTORY_LIMIT);
    assert.equal(loaded.at(-1), `p${HISTORY_LIMIT + 4}`);
    let problem = '';
    appendHistory(join(file, 'not-a-dir', 'x.jsonl'), 'p', (m) => (problem = m));
    assert.match(problem, /could not save the prompt history/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('/sessions: "1 message" and "2 messages"; runs never answered are left out, unreadable ones kept', () => {
  const summary = (over: Partial<SessionSummary>): SessionSummary => ({
    path: '/s.jsonl',
    modified: '2026-01-01T00:00:00.000Z',
    model: 'anthropic/m',
    message_count: 2,
    answered: true,
    cost_usd: 0.02,
    first_prompt: 'hi',
    ...over,
  });
  assert.equal(sessionDetail(summary({ message_count: 1 })), 'anthropic/m · 1 message · $0.02');
  assert.equal(sessionDetail(summary({})), 'anthropic/m · 2 messages · $0.02');
  const failed = summary({ path: '/failed.jsonl', answered: false, message_count: 1 });
  const unreadable = summary({ path: '/bad.jsonl', answered: false, error: 'not a session' });
  assert.deepEqual(
    resumable([failed, summary({}), unreadable]).map((s) => s.path),
    ['/s.jsonl', '/bad.jsonl'],
  );
});
