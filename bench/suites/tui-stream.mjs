// Streaming a 2,000-line markdown answer into the real chat view on a headless terminal: CPU
// time and bytes written per frame at the start of the stream and at its end. Differential
// rendering must keep both flat as the transcript grows (target: end/start <= 1.5). Also the
// bytes written for a short, 20-word answer (the Go original writes 18.6 KB, pi 29 KB).
import { TUI } from '@mariozechner/pi-tui';
import { ROOT, row } from '../lib/common.mjs';

const dist = `${ROOT}packages/zot/dist/src/`;
const { ChatView } = await import(`${dist}modes/interactive/chat/chat-view.js`);
const { VirtualTerminal } = await import(`${dist}tui/testing/virtual-terminal.js`);
const { createTheme, DARK } = await import(`${dist}tui/theme.js`);
const { memoizeFrames } = await import(`${dist}tui/frame-memo.js`);

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

/** Streams `text` in word-sized deltas, `perFrame` deltas per drawn frame; per-frame costs. */
function stream(text, perFrame, columns = 120, rows = 40) {
  const terminal = new VirtualTerminal({ columns, rows, scrollback: 100 });
  const tui = new TUI(terminal);
  memoizeFrames(tui); // as the app does
  const chat = new ChatView({ tui, theme: createTheme(DARK, true) });
  tui.addChild(chat.container);
  tui.start();
  const draw = () => tui.doRender(); // synchronous: the frame the timer would draw
  chat.handle({ type: 'user_message', content: [{ type: 'text', text: 'write it' }], time: '' });
  chat.handle({ type: 'turn_start', step: 1 });
  draw();
  const deltas = text.match(/\S+\s*/g) ?? [];
  const frames = [];
  for (let i = 0; i < deltas.length; i += perFrame) {
    for (const delta of deltas.slice(i, i + perFrame)) chat.handle({ type: 'text_delta', delta });
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
  const text = answer(quick ? 600 : 2000);
  stream(answer(100), 5); // warm-up: JIT, caches
  const { frames } = stream(text, 5);
  const window = Math.min(100, Math.floor(frames.length / 4));
  const start = frames.slice(5, 5 + window);
  const end = frames.slice(-window);
  const short = stream(Array.from({ length: 20 }, (_, i) => `word${i}`).join(' '), 1, 100, 30);
  return {
    name: 'tui-stream',
    rows: [
      row(
        'streaming: CPU ms per frame, end vs start of the stream',
        start.map((f) => f.ms),
        end.map((f) => f.ms),
        { maxRatio: 1.5 },
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
        metric: `bytes written for a 20-word streamed answer: ${short.total} (Go original 18.6 KB, pi 29 KB)`,
        unit: 'bytes',
        baseline: { median: 18_600, p90: 18_600 },
        subject: { median: short.total, p90: short.total },
        ratio: Math.round((short.total / 18_600) * 1000) / 1000,
        target: 'ratio <= 1 (vs Go)',
        pass: short.total <= 18_600,
      },
    ],
  };
}
