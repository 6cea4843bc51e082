// The `tui` fuzz target: hostile text (escape sequences, C0 and C1 controls, bidi overrides,
// invisible characters, long runs of spaces, lone surrogates, wide and joined characters) in
// every string a TUI widget draws: tool rows (name, preview, output, extension, diff), the
// chat's blocks and markdown, notes, the queue, the status line, the select and text dialogs,
// confirmations and the trust review, panels, the suggestion list and the editor. Each widget is
// rendered at a random width, with and without colour, and must draw only text: no escape but
// its own colours, no line wider than the width; a confirmation must bring every row of what
// will run on screen as the user scrolls.
import { TUI, visibleWidth, type Component } from '@mariozechner/pi-tui';
import type { RuntimeState } from '../../src/contract/state.js';
import { reviewText } from '../../src/modes/interactive/trust-dialog.js';
import { StatusLine } from '../../src/modes/interactive/status-line.js';
import { ChoiceDialog } from '../../src/tui/choice-dialog.js';
import { commandSuggestions, SuggestionList } from '../../src/tui/command-autocomplete.js';
import { ConfirmDialog } from '../../src/tui/confirm-dialog.js';
import { innerWidth } from '../../src/tui/dialog-frame.js';
import { MarkdownView } from '../../src/tui/markdown-view.js';
import { NotesView } from '../../src/tui/notes-view.js';
import { PanelView } from '../../src/tui/panel-view.js';
import { QueueView } from '../../src/tui/queue-view.js';
import { revealText } from '../../src/tui/reveal-text.js';
import { SafeEditor } from '../../src/tui/safe-input.js';
import { SelectDialog } from '../../src/tui/select-dialog.js';
import { terminalHazards } from '../../src/tui/testing/terminal-bytes.js';
import { terminalSafe } from '../../src/util/terminal-text.js';
import { VirtualTerminal } from '../../src/tui/testing/virtual-terminal.js';
import { StyledBlock, ThinkingBlock, UserMessageBlock } from '../../src/tui/text-blocks.js';
import { TextPromptDialog } from '../../src/tui/text-prompt-dialog.js';
import { createTheme, DARK, type Theme } from '../../src/tui/theme.js';
import { ToolRow } from '../../src/tui/tool-row.js';
import { Rng } from './prng.js';
import type { Limits } from './values.js';

const PIECES: ReadonlyArray<string> = [
  '\x1b]52;c;SEFDSw==\x07',
  '\x1b]52;c;SEFDSw==\x1b\\',
  '\x1b[2J',
  '\x1b[H\x1b[3J',
  '\x1b[31m',
  '\x1b[0m',
  '\x1b]0;title\x07',
  '\x1b]8;;https://evil\x07link\x1b]8;;\x07',
  '\x1bP+q\x1b\\',
  '\x1b_pi:c\x07',
  '\x1b',
  '\x9b2J',
  '\x9d52;c;x\x9c',
  '\u202e',
  '\u2066\u2069',
  '\u200b',
  '\u200d',
  '\u200c',
  '\ufeff',
  '\ufe0f\ufe0f',
  '\u{e0041}\u{e0042}',
  '\u2028',
  '\r',
  '\n',
  '\t',
  '\x07',
  '\x00',
  '\x7f',
  '\u00a0',
  '\u3000',
  ' '.repeat(150),
  '\ud800',
  '\udc00',
  '👩‍💻',
  '❤️',
  '日本語',
  'é',
  'e\u0301',
  '«9 spaces»',
  '\\x1b',
];

/** Text built from hostile pieces and plain words, up to about `max` characters. */
export function hostileText(rng: Rng, max: number): string {
  let out = '';
  const target = rng.size(max);
  while (out.length < target) {
    out += rng.weighted<string>([
      [5, () => rng.pick(PIECES)],
      [4, () => rng.pick(['ls', 'rm -rf /', 'word', ' ', 'print(1)', '#', '/', '.txt'])],
      [1, () => String.fromCodePoint(rng.range(0, 0x2100))],
      [1, () => 'x'.repeat(rng.size(300))],
    ]);
  }
  return out;
}

// The escapes a widget may write itself: SGR colours and attributes.
const OWN_SGR = /\x1b\[[0-9;:]*m/g;

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`contract broken: ${message}`);
}

/** Lines drawn by a widget: within the width, and nothing but text and its own colours. */
function checkLines(what: string, lines: readonly string[], width: number): void {
  for (const line of lines) {
    assert(
      visibleWidth(line) <= width,
      `${what}: a line wider than ${width}: ${JSON.stringify(line)}`,
    );
    const hazards = terminalHazards(line);
    assert(hazards.length === 0, `${what}: ${hazards.join(', ')} in ${JSON.stringify(line)}`);
    // What is left after its colours is text that terminalSafe leaves as it is (a joiner kept
    // between two characters may end a line once the text is wrapped).
    const rest = line
      .replace(OWN_SGR, '')
      .trimEnd()
      .replace(/^[\u200c\u200d]|[\u200c\u200d]$/u, '');
    assert(
      terminalSafe(rest) === rest,
      `${what}: a character shown unescaped in ${JSON.stringify(line)}`,
    );
  }
}

export interface TuiCase {
  widget: string;
  width: number;
  color: boolean;
  texts: string[];
  seed: number;
}

type Render = (theme: Theme, texts: string[], rng: Rng) => Component;

const state = (t: string[]): RuntimeState => ({
  provider: t[0]!,
  model: t[1]!,
  cwd: t[2]!,
  busy: true,
  queue_length: 1,
  message_count: 2,
  session_file: null,
  usage: { input: 1, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0.01 },
  context: { used: 10, window: 100 },
  yolo: false,
  sandbox: { mode: 'on', status: 'active', network: [t[6]!] },
  extensions: { loaded: [t[3]!], failed: [] },
  commands_revision: 0,
  open_panel: null,
});

const EDITOR_THEME = (theme: Theme) => ({
  borderColor: theme.border,
  selectList: {
    selectedPrefix: theme.selected,
    selectedText: theme.selected,
    description: theme.muted,
    scrollInfo: theme.dim,
    noMatch: theme.muted,
  },
});

/** One TUI for every editor case (an editor reads the terminal's height; it never starts). */
let sharedTui: TUI | undefined;
const editorTui = () => (sharedTui ??= new TUI(new VirtualTerminal()));

const WIDGETS: Record<string, Render> = {
  toolRow: (theme, t, rng) => {
    const row = new ToolRow({
      theme,
      name: t[0]!,
      show: rng.chance(0.5) ? 'tail' : 'head',
      now: () => 0,
    });
    row.start(t[1]!);
    if (rng.chance(0.3)) row.progress(t[2]!);
    if (rng.chance(0.8)) {
      const diff = {
        kind: 'edit' as const,
        path: t[3]!,
        added: 1,
        removed: 1,
        hunks: [
          {
            old_start: 1,
            old_lines: 1,
            new_start: 1,
            new_lines: 1,
            lines: [`-${t[4]}`, `+${t[5]}`, ` ${t[6]}`],
          },
        ],
      };
      row.finish({
        isError: rng.chance(0.3),
        output: t[2]!,
        ...(rng.chance(0.4) ? { diff } : {}),
        ...(rng.chance(0.5) ? { extension: t[7]! } : {}),
      });
    }
    row.expanded = rng.chance(0.5);
    return row;
  },
  userMessage: (theme, t) => new UserMessageBlock(t[0]!, theme),
  thinking: (theme, t) => {
    const block = new ThinkingBlock(theme);
    block.append(t[0]!);
    return block;
  },
  styledBlock: (theme, t) => new StyledBlock(t[0]!, theme.error),
  markdown: (theme, t, rng) => {
    const view = new MarkdownView(theme);
    for (const part of t) if (rng.chance(0.7)) view.append(`${part}\n\n`);
    return view;
  },
  notes: (theme, t) => {
    const view = new NotesView({ theme });
    view.setNotes([
      { source: t[0]!, message: t[1]!, level: 'warn' },
      { source: t[2]!, message: t[3]!, level: 'info' },
    ]);
    return view;
  },
  queue: (theme, t) => {
    const view = new QueueView({ theme });
    view.setMessages([
      { text: t[0]!, kind: 'steer' },
      { text: t[1]!, kind: 'follow-up' },
    ]);
    return view;
  },
  statusLine: (theme, t) => {
    const line = new StatusLine({ theme, home: t[4]!, branch: () => t[5]! });
    line.update(state(t));
    return line;
  },
  selectDialog: (theme, t, rng) => {
    const dialog = new SelectDialog({
      title: t[0]!,
      theme,
      items: [0, 1, 2].map((i) => ({
        value: i,
        label: t[1 + i]!,
        description: t[4 + i]!,
        detail: t[7 - i]!,
        current: i === 1,
      })),
      emptyText: t[5]!,
      onSelect: () => undefined,
      onCancel: () => undefined,
    });
    if (rng.chance(0.5)) dialog.handleInput(`\x1b[200~${t[6]}\x1b[201~`);
    return dialog;
  },
  textPrompt: (theme, t, rng) => {
    const dialog = new TextPromptDialog({
      title: t[0]!,
      message: t[1]!,
      theme,
      ...(rng.chance(0.5) ? { initialValue: t[2]! } : {}),
      validate: () => undefined,
      onSubmit: () => undefined,
      onCancel: () => undefined,
    });
    dialog.setError(t[3]!);
    dialog.handleInput(`\x1b[200~${t[4]}\x1b[201~`);
    return dialog;
  },
  confirm: (theme, t, rng) => {
    const dialog = new ConfirmDialog({
      toolName: t[0]!,
      preview: t[1]!,
      title: rng.chance(0.3) ? t[2]! : undefined,
      theme,
      maxPreviewRows: rng.range(1, 30),
      onChoice: () => undefined,
    });
    for (let i = rng.size(3); i > 0; i--)
      dialog.handleInput(rng.pick(['\x1b[6~', '\x1b[5~', '\x1b[B']));
    return dialog;
  },
  trust: (theme, t) =>
    new ChoiceDialog({
      title: `Project extension ${t[0]}`,
      preview: reviewText({
        name: t[0]!,
        dir: t[1]!,
        description: t[2]!,
        state: 'new',
        argv: [t[3]!, t[4]!, t[5]!],
        files: 2,
        bytes: 10,
        covered: [t[6]!],
        hash: 'sha256:00',
        scoped: true,
        permissions: [t[7]!],
        summary: [t[0]!, t[1]!],
        widened: [t[2]!],
      }),
      previewStyle: theme.text,
      choices: [{ value: 'once', label: 'Run it this session only' }],
      cancel: 'once',
      theme,
      onChoice: () => undefined,
    }),
  panel: (theme, t) => {
    const panel = new PanelView({
      theme,
      maxRows: () => 12,
      onKey: () => undefined,
      onClose: () => undefined,
    });
    panel.set({ title: t[0]!, lines: [t[1]!, t[2]!, t[3]!], footer: t[4]! });
    return panel;
  },
  suggestions: (theme, t) => {
    const items = commandSuggestions(
      [
        { name: t[0]!, description: t[1]!, argumentHint: t[2]!, source: t[3]! },
        { name: t[4]!, description: t[5]!, source: 'builtin' },
      ],
      '',
    );
    items.push({ value: `@${t[6]}`, label: t[6]!, kind: 'file' });
    return new SuggestionList(items, 5, theme);
  },
  editor: (theme, t, rng) => {
    const editor = new SafeEditor(editorTui(), EDITOR_THEME(theme));
    editor.addToHistory(t[0]!);
    editor.setText(t[1]!);
    editor.insertTextAtCursor(t[2]!);
    editor.handleInput(`\x1b[200~${t[3]}\x1b[201~`);
    if (rng.chance(0.3)) editor.handleInput('\x1b[A');
    return editor;
  },
};

const BORDER =
  /^(?:\x1b\[[0-9;:]*m)*│(?:\x1b\[[0-9;:]*m)* | (?:\x1b\[[0-9;:]*m)*│(?:\x1b\[[0-9;:]*m)*$/g;

/** A frame row without its borders and the space inside each. */
const unframe = (line: string) => line.replace(BORDER, '');

/**
 * A confirmation shows every row of what it asks about: paging down from the top brings each
 * row of the revealed text on screen, in order, and the rows hold every character of it.
 */
function checkConfirmShowsAll(theme: Theme, preview: string, width: number, room: number): void {
  const dialog = new ConfirmDialog({
    toolName: 'bash',
    preview,
    theme,
    maxPreviewRows: room,
    onChoice: () => undefined,
  });
  const expected = revealText(preview, innerWidth(width), theme, {
    style: theme.toolPreview,
    numbered: true,
  }).rows;
  const seen: string[] = [];
  for (let page = 0; page <= expected.length; page++) {
    const lines = dialog.render(width).slice(1).map(unframe);
    const about = /rows (\d+)-(\d+) of (\d+)/.exec(lines[0]!.replace(OWN_SGR, ''));
    const first = about ? Number(about[1]) - 1 : 0;
    const last = about ? Number(about[2]) : expected.length;
    for (let i = first; i < last; i++) seen[i] = lines[1 + i - first]!;
    if (last >= expected.length) break;
    dialog.handleInput('\x1b[6~');
  }
  assert(
    seen.length === expected.length,
    `confirm: ${seen.length} of ${expected.length} rows shown`,
  );
  for (let i = 0; i < expected.length; i++) {
    assert(seen[i] !== undefined, `confirm: row ${i + 1} never shown`);
    assert(
      seen[i]!.startsWith(expected[i]!) && seen[i]!.slice(expected[i]!.length).trim() === '',
      `confirm: row ${i + 1} shown as ${JSON.stringify(seen[i])}, not ${JSON.stringify(expected[i])}`,
    );
  }
}

export function generateTuiCase(rng: Rng, limits: Limits): TuiCase {
  const names = Object.keys(WIDGETS);
  const widget = rng.pick([...names, 'confirm-scroll']);
  const max = Math.min(limits.maxBytes, rng.chance(0.9) ? 200 : 4000);
  return {
    widget,
    // From 4 columns: below that a wide character cannot fit pi-tui's editor at all (it recurses
    // without end) and its markdown draws it anyway; no terminal is that narrow.
    width: rng.chance(0.8) ? rng.range(20, 200) : rng.range(4, 19),
    color: rng.chance(0.5),
    texts: Array.from({ length: 8 }, () => hostileText(rng, max)),
    seed: rng.int(2 ** 31),
  };
}

export function checkTuiCase(input: TuiCase): void {
  const theme = createTheme(DARK, input.color);
  const rng = new Rng(input.seed);
  if (input.widget === 'confirm-scroll') {
    const room = rng.range(1, 12);
    // The dialog is at least 56 columns wide wherever the terminal allows (DIALOG_OVERLAY).
    checkConfirmShowsAll(theme, input.texts.join('\n'), Math.max(input.width, 56), room);
    return;
  }
  const component = WIDGETS[input.widget]!(theme, input.texts, rng);
  // The bytes a terminal would get are these lines: checked for width and for hazards.
  checkLines(input.widget, component.render(input.width), input.width);
}
