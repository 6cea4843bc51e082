// A flood of 10,000 tool_progress lines into a running tool's row in the real chat view, on a
// headless terminal: CPU time per frame (the lines that arrived since the last frame handled,
// then the frame drawn), against the same frames of the same running row with no progress.
// The TUI draws at most 60 frames a second; the flood must not push a frame past 33 ms (target:
// >= 30 fps at the p90). No rate limit here: zot's host passes an extension at most a burst of
// 100 lines and 50 a second per call, so this is well past the worst a front end is sent.
import { TUI } from '@mariozechner/pi-tui';
import { ROOT, row, summarize } from '../lib/common.mjs';

const dist = `${ROOT}packages/zot/dist/src/`;
const { ChatView } = await import(`${dist}modes/interactive/chat/chat-view.js`);
const { VirtualTerminal } = await import(`${dist}tui/testing/virtual-terminal.js`);
const { createTheme, DARK } = await import(`${dist}tui/theme.js`);
const { memoizeFrames } = await import(`${dist}tui/frame-memo.js`);

const LINES = 10_000;

/**
 * `frames` frames of a chat whose tool call is running; before each, `perFrame` progress lines
 * (none for the baseline). Returns the CPU ms of each frame: its lines handled, then drawn.
 */
function flood(frames, perFrame) {
  const terminal = new VirtualTerminal({ columns: 120, rows: 40, scrollback: 100 });
  const tui = new TUI(terminal);
  memoizeFrames(tui); // as the app does
  const chat = new ChatView({ tui, theme: createTheme(DARK, true) });
  tui.addChild(chat.container);
  tui.start();
  const draw = () => tui.doRender(); // synchronous: the frame the timer would draw
  chat.handle({ type: 'user_message', content: [{ type: 'text', text: 'build it' }], time: '' });
  chat.handle({ type: 'turn_start', step: 1 });
  chat.handle({
    type: 'tool_call',
    id: 't1',
    name: 'build',
    args: {},
    preview: 'build --all',
    extension: 'builder',
  });
  draw();
  const samples = [];
  let sent = 0;
  for (let frame = 0; frame < frames; frame++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < perFrame; i++, sent++)
      chat.handle({
        type: 'tool_progress',
        id: 't1',
        text: `step ${sent}: compiled module_${sent}.ts`,
      });
    draw();
    const used = process.cpuUsage(cpu);
    samples.push((used.user + used.system) / 1000);
  }
  tui.stop();
  terminal.dispose();
  return samples;
}

export async function run(options) {
  const lines = options.quick ? 2_000 : LINES;
  // 100 lines a frame: the whole flood in 100 frames, under two seconds at 60 fps.
  const perFrame = 100;
  const frames = lines / perFrame;
  flood(20, perFrame); // warm-up: JIT, caches
  const baseline = [];
  const subject = [];
  // Alternating runs, so that load on the machine affects both alike.
  for (let round = 0; round < 3; round++) {
    baseline.push(...flood(frames, 0));
    subject.push(...flood(frames, perFrame));
  }
  const p90 = summarize(subject).p90;
  const fps = Math.min(60, Math.floor(1000 / Math.max(p90, 1000 / 60)));
  const last = subject.slice(-Math.floor(frames / 4));
  return {
    name: 'tui-progress',
    rows: [
      {
        ...row(
          `progress flood: CPU ms per frame, ${lines} lines at ${perFrame} a frame vs no progress`,
          baseline,
          subject,
          { maxMs: 1000 / 30 },
          { frames: subject.length },
        ),
        target: `p90 ${p90.toFixed(2)} ms: ${fps} fps >= 30`,
        pass: p90 <= 1000 / 30,
      },
      {
        ...row(
          'progress flood: CPU ms per frame, last quarter of the flood vs no progress',
          baseline,
          last,
          { maxMs: 1000 / 30 },
        ),
        target: 'none (report: growth with the row)',
        pass: null,
      },
    ],
  };
}
