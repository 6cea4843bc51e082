// Streaming a 5,000-line markdown answer (1,500 in quick mode) into the real chat view on a
// headless terminal: CPU time and bytes written per frame at the start of the stream and at its
// end. Differential rendering must keep both flat as the transcript grows (targets: CPU end/start
// <= 1.3, bytes <= 1.5). Also the
// bytes written for a short, 20-word answer (the Go original writes 18.6 KB, pi 29 KB).
import { Editor, TUI } from '@mariozechner/pi-tui';
import { ROOT, row } from '../lib/common.mjs';

const dist = `${ROOT}packages/zot/dist/src/`;
const { ChatView } = await import(`${dist}modes/interactive/chat/chat-view.js`);
const { VirtualTerminal } = await import(`${dist}tui/testing/virtual-terminal.js`);
const { createTheme, DARK } = await import(`${dist}tui/theme.js`);
const { memoizeFrames } = await import(`${dist}tui/frame-memo.js`);
const { FittedFrame } = await import(`${dist}tui/fitted-frame.js`);
const { StatusLine } = await import(`${dist}modes/interactive/status-line.js`);

const SELECT_LIST = {
  selectedPrefix: (s) => s,
  selectedText: (s) => s,
  description: (s) => s,
  scrollInfo: (s) => s,
  noMatch: (s) => s,
};
const STATE = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  cwd: '/home/user/project',
  busy: true,
  queue_length: 0,
  message_count: 1,
  session_file: null,
  usage: { input: 1200, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0.01 },
  context: { used: 1200, window: 200_000 },
  yolo: true,
  sandbox: { mode: 'off', status: 'off', network: false },
  extensions: { loaded: [], failed: [] },
  commands_revision: 0,
  open_panel: null,
};

/** A long answer with the usual mix: headings, paragraphs, lists, code, tables. */
function answer(lines) {
  const out = [];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `## Section ${i}`,
      '',
      `Paragraph ${i} explains **one thing** with \`code\` and a [link](https://example.com/${i}).`,
      '',
    );
    out.push('- first point', '- second point', '');
    out.push('```ts', `const value${i} = compute(${i});`, 'console.log(value);', '```', '');
    if (i % 5 === 0) out.push('| a | b |', '|---|---|', `| ${i} | ${i * 2} |`, '');
  }
  return out.slice(0, lines).join('\n');
}

/**
 * Streams `text` in word-sized deltas, `perFrame` deltas per drawn frame, into the screen the app
 * draws (chat, editor, status line with its live token estimate): per-frame CPU and bytes.
 * `zot: false` draws the same components on pi-tui as it comes (its own differential render).
 */
function stream(text, perFrame, { columns = 120, rows = 40, zot = true } = {}) {
  let clock = 0;
  const now = () => clock;
  const terminal = new VirtualTerminal({ columns, rows, scrollback: 100 });
  const tui = new TUI(terminal);
  const theme = createTheme(DARK, true);
  const chat = new ChatView({ tui, theme, now });
  const editor = new Editor(tui, { borderColor: theme.border, selectList: SELECT_LIST });
  const status = new StatusLine({ theme, now });
  status.update(STATE);
  if (zot) {
    memoizeFrames(tui); // as the app does
    const frame = new FittedFrame();
    for (const child of [chat.container, editor, status]) frame.addChild(child);
    frame.mount(tui);
  } else {
    for (const child of [chat.container, editor, status]) tui.addChild(child);
  }
  tui.setFocus(editor);
  tui.start();
  const draw = () => tui.doRender(); // synchronous: the frame the timer would draw
  chat.handle({ type: 'user_message', content: [{ type: 'text', text: 'write it' }], time: '' });
  chat.handle({ type: 'turn_start', step: 1 });
  draw();
  const deltas = text.match(/\S+\s*/g) ?? [];
  const frames = [];
  for (let i = 0; i < deltas.length; i += perFrame) {
    clock += 50;
    for (const delta of deltas.slice(i, i + perFrame)) {
      chat.handle({ type: 'text_delta', delta });
      status.stream(delta.length);
    }
    const bytes = terminal.bytesWritten;
    const cpu = process.cpuUsage();
    draw();
    const used = process.cpuUsage(cpu);
    frames.push({ ms: (used.user + used.system) / 1000, bytes: terminal.bytesWritten - bytes });
  }
  chat.handle({ type: 'done' });
  draw();
  const total = terminal.bytesWritten;
  tui.stop();
  terminal.dispose();
  return { frames, total };
}

export async function run(options) {
  const quick = options.quick;
  const text = answer(quick ? 1500 : 5000);
  stream(answer(100), 5); // warm-up: JIT, caches
  stream(answer(100), 5, { zot: false });
  // Three streams, their start and end frames pooled: one busy moment on a shared machine
  // (another process, a collection) then moves a window's median less.
  const start = [];
  const end = [];
  let frames = [];
  for (let run = 0; run < 3; run++) {
    frames = stream(text, 5).frames;
    const window = Math.min(100, Math.floor(frames.length / 4));
    start.push(...frames.slice(5, 5 + window));
    end.push(...frames.slice(-window));
  }
  // The same lines drawn by pi-tui's own differential render, frame for frame.
  const sample = answer(quick ? 300 : 600);
  const zotFrames = stream(sample, 1).frames;
  const piFrames = stream(sample, 1, { zot: false }).frames;
  const words = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
  const short = stream(words, 1, { columns: 100, rows: 30 });
  const shortPi = stream(words, 1, { columns: 100, rows: 30, zot: false });
  return {
    name: 'tui-stream',
    rows: [
      row(
        `streaming a ${quick ? '1,500' : '5,000'}-line answer: CPU ms per frame, end vs start`,
        start.map((f) => f.ms),
        end.map((f) => f.ms),
        { maxRatio: 1.3 },
        { frames: frames.length },
      ),
      {
        ...row(
          'streaming: bytes per frame, end vs start of the stream',
          start.map((f) => f.bytes),
          end.map((f) => f.bytes),
          { maxRatio: 1.5 },
        ),
        unit: 'bytes',
      },
      {
        ...row(
          "streaming: bytes per frame, zot vs pi-tui's own differential render of the same lines",
          piFrames.map((f) => f.bytes),
          zotFrames.map((f) => f.bytes),
          { maxRatio: 1 },
        ),
        unit: 'bytes',
      },
      {
        metric: `bytes written for a 20-word streamed answer: ${short.total} (pi-tui's own render of the same lines ${shortPi.total}; the Go original 18.6 KB)`,
        unit: 'bytes',
        baseline: { median: shortPi.total, p90: shortPi.total },
        subject: { median: short.total, p90: short.total },
        ratio: Math.round((short.total / shortPi.total) * 1000) / 1000,
        target: 'ratio <= 1',
        pass: short.total <= shortPi.total,
      },
    ],
  };
}
