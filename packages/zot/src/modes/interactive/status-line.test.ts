// The status line at 60 and 200 columns: what it says, that it never overflows, and what gives
// way first when it must be cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleWidth } from '@mariozechner/pi-tui';
import type { RuntimeState } from '../../contract/state.js';
import { createTheme, DARK } from '../../tui/theme.js';
import { renderLines } from '../../tui/testing/virtual-terminal.js';
import { middleCut, StatusLine } from './status-line.js';

const state = (over: Partial<RuntimeState> = {}): RuntimeState => ({
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  cwd: '/home/ann/projects/a-rather-long-project-name/packages/server',
  busy: false,
  queue_length: 0,
  message_count: 4,
  session_file: null,
  usage: { input: 12_300, output: 2_100, cache_read: 0, cache_write: 0, cost_usd: 0.0421 },
  context: { used: 50_000, window: 200_000 },
  yolo: false,
  sandbox: { mode: 'off', status: 'off', network: false },
  extensions: { loaded: ['kit', 'guard'], failed: ['broken'] },
  commands_revision: 0,
  open_panel: null,
  ...over,
});

test('at 200 columns everything shows: place, branch, model, tokens, cost, context, extensions', async () => {
  const line = new StatusLine({
    theme: createTheme(DARK, false),
    home: '/home/ann',
    branch: () => 'main',
  });
  line.update(state({ busy: true, queue_length: 2 }));
  const [text] = await renderLines(line, 200);
  assert.equal(
    text,
    '~/projects/a-rather-long-project-name/packages/server (main) · anthropic/claude-sonnet-4-5 · ' +
      '↑12k ↓2.1k · $0.0421 · ctx 25% · confirm · ext 2 (1 failed) · working · 2 queued',
  );
});

test('at 60 columns the directory gives way first; no line is wider than the terminal', async () => {
  const line = new StatusLine({
    theme: createTheme(DARK, true),
    home: '/home/ann',
    branch: () => 'main',
  });
  line.update(state());
  for (const width of [60, 200])
    assert.ok(line.render(width).every((l) => visibleWidth(l) <= width));
  const [text] = await renderLines(line, 60);
  assert.ok(!text!.includes('/home/ann'), text);
  // The directory's end stays, shortened; the line's end gives way.
  assert.match(text!, /^…[^ ]*server \(main\) · anthropic\/claude-sonnet/);
});

test('output tokens and the context meter move while the answer streams, until usage comes', async () => {
  const line = new StatusLine({ theme: createTheme(DARK, false) });
  line.update(state({ busy: true, cwd: '/p' }));
  line.stream(8_000); // about 2,000 tokens
  const [streaming] = await renderLines(line, 200);
  assert.match(streaming!, /↓~4\.1k/);
  assert.match(streaming!, /ctx 26%/);
  line.update(state({ busy: true, cwd: '/p', usage: { ...state().usage, output: 4_200 } }));
  const [after] = await renderLines(line, 200);
  assert.match(after!, /↓4\.2k ·/, 'the reported figure replaces the estimate');
});

test('the sandbox: nothing when off, its mode when it runs, in red when it cannot start', async () => {
  const theme = createTheme(DARK, true);
  const line = new StatusLine({ theme });
  const render = async (sandbox: RuntimeState['sandbox']) => {
    line.update(state({ cwd: '/p', sandbox }));
    return (await renderLines(line, 200))[0]!;
  };
  assert.doesNotMatch(await render({ mode: 'off', status: 'off', network: false }), /sandbox/);
  assert.match(await render({ mode: 'on', status: 'checking', network: false }), /· sandbox… ·/);
  assert.match(await render({ mode: 'on', status: 'active', network: false }), /· sandbox ·/);
  assert.match(
    await render({ mode: 'required', status: 'active', network: true }),
    /· sandbox required ·/,
  );
  line.update(
    state({ cwd: '/p', sandbox: { mode: 'required', status: 'unavailable', network: false } }),
  );
  const red = line.render(200)[0]!;
  assert.ok(red.includes(theme.error('sandbox required: unavailable')), 'in the error colour');
});

test('remote extensions that are not connected show their URL and state; a connected one nothing', async () => {
  let now = 10_000;
  const line = new StatusLine({
    theme: createTheme(DARK, false),
    home: '/home/ann',
    branch: () => 'main',
    now: () => now,
  });
  type Link = NonNullable<RuntimeState['extensions']['remote']>[number];
  const link = (over: Pick<Link, 'name' | 'connection'> & Partial<Link>): Link => ({
    transport: 'websocket',
    url: 'wss://policy.example/zot',
    ...over,
  });
  line.update(
    state({
      extensions: {
        loaded: ['kit'],
        failed: [],
        remote: [
          link({ name: 'up', connection: 'connected' }),
          link({ name: 'policy', connection: 'reconnecting', retry_at: 12_500 }),
          link({
            name: 'gone',
            url: 'ws://127.0.0.1:9/x',
            connection: 'down',
            reason: 'nothing listens at ws://127.0.0.1:9/x',
          }),
          link({ name: 'new', connection: 'connecting' }),
        ],
      },
    }),
  );
  const [text] = await renderLines(line, 400);
  assert.match(
    text!,
    / · ext 1 · policy \(wss:\/\/policy\.example\/zot\) reconnecting in 3 s · gone \(ws:\/\/127\.0\.0\.1:9\/x\) down: nothing listens at ws:\/\/127\.0\.0\.1:9\/x · new \(wss:\/\/policy\.example\/zot\) connecting$/,
  );
  assert.doesNotMatch(text!, /up \(/);
  now = 12_000; // the countdown is read from retry_at at each render
  assert.match(
    (await renderLines(line, 400))[0]!,
    /policy \(wss:\/\/policy\.example\/zot\) reconnecting in 1 s/,
  );
  now = 13_000;
  assert.match(
    (await renderLines(line, 400))[0]!,
    /policy \(wss:\/\/policy\.example\/zot\) reconnecting · /,
  );
});

test('at 60 columns the thinking level shows: its label shortens, then the model gives its middle', async () => {
  const line = new StatusLine({
    theme: createTheme(DARK, false),
    home: '/home/ann',
    branch: () => 'main',
    reasoning: () => 'high',
  });
  line.update(state());
  const [at60] = await renderLines(line, 60);
  // The directory keeps its 16 columns; the label shortens, the model gives its middle, and
  // confirm and the extensions are cut at the line's end.
  assert.equal(at60, '…s/server (main) · anthropic/…e-sonnet-4-5 · ctx 25% · high…');
  assert.ok(visibleWidth(at60!) <= 60, at60);
  const [at200] = await renderLines(line, 200);
  assert.match(at200!, / · ctx 25% · thinking high · confirm/, 'a wide line keeps the whole label');
});

test('a long model name is cut in the middle, its provider and end kept, so the level still shows', async () => {
  const line = new StatusLine({ theme: createTheme(DARK, true), reasoning: () => 'medium' });
  line.update(state({ cwd: '/p', model: 'a-very-long-model-name-from-a-gateway-2025-10-01' }));
  for (const width of [40, 50, 60]) {
    const [text] = await renderLines(line, width);
    assert.ok(visibleWidth(text!) <= width, text);
    assert.match(text!, /^\/p · anthr[^ ]*…[^ ]*10-01 · ctx 25% · medium…$/, `${width}: ${text}`);
    // From 50 columns on, the whole provider prefix fits beside the name's end.
    if (width >= 50) assert.match(text!, /anthropic\/…/, text);
  }
});

test('middleCut keeps the provider prefix and the end, in the columns given', () => {
  assert.equal(middleCut('anthropic/claude-sonnet-4-5', 40), 'anthropic/claude-sonnet-4-5');
  assert.equal(middleCut('anthropic/claude-sonnet-4-5', 20), 'anthropic/…onnet-4-5');
  // Too narrow for the prefix and a few characters of the end: half and half.
  assert.equal(middleCut('anthropic/claude-sonnet-4-5', 10), 'anthr…-4-5');
  assert.equal(middleCut('model', 1), '…');
  assert.equal(middleCut('模型模型模型模型', 7), '模…模型');
  for (let max = 0; max < 30; max++)
    assert.ok(visibleWidth(middleCut('openai/gpt-5-codex-mini-2025', max)) <= max);
});
