// A print run with one tool call: `zot -p` whose model asks for one `read` of a small file and
// then answers, against the same `zot -p` run answered at once (issue 14: the first tool call
// must not cost Ajv's load and schema compilation). Both spawn to exit, interleaved in the same
// rounds, against the same local server. Then the peak RSS of both runs, with /usr/bin/time -f %M
// (the rows are skipped, with a note, where it is missing).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  interleave,
  peakRssMiB,
  row,
  rounds,
  summarize,
  TIME_BIN,
  timedNode,
  ZOT_MAIN,
} from '../lib/common.mjs';

const TARGET = { maxRatio: 1.15 };
const MAX_RSS_MIB = 64;
const ANSWER = 'The file has three lines.';
const FILE_TEXT = 'alpha\nbeta\ngamma\n';

/** An Anthropic Messages stream: server-sent events, one per line pair. */
function sse(events) {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

const start = (n) => ({
  type: 'message_start',
  message: {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: 'bench',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
});
const stop = (reason) => [
  { type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
];

const TEXT_REPLY = sse([
  start(1),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ANSWER } },
  { type: 'content_block_stop', index: 0 },
  ...stop('end_turn'),
]);
const TOOL_REPLY = sse([
  start(2),
  {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'input_json_delta', partial_json: '{"path": "small.txt"}' },
  },
  { type: 'content_block_stop', index: 0 },
  ...stop('tool_use'),
]);

/**
 * Answers a prompt asking to read with a read tool call, everything else (the plain prompt,
 * and the request carrying the tool's result) with text. Checks the result came back.
 */
async function startServer() {
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      const hasResult = body.includes('"tool_result"');
      if (hasResult && !body.includes('alpha')) server.failures.push('no file text in the result');
      const reply = !hasResult && body.includes('read small.txt') ? TOOL_REPLY : TEXT_REPLY;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(reply);
    });
  });
  server.failures = [];
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.url = `http://127.0.0.1:${server.address().port}`;
  return server;
}

/** The RSS runs' output check: the model's answer was printed. */
function answered(stdout) {
  if (!stdout.includes(ANSWER))
    throw new Error(`zot: no answer in ${JSON.stringify(stdout.slice(0, 80))}`);
}

function check(result, args) {
  if (result.code !== 0 || !result.stdout.includes(ANSWER)) {
    throw new Error(
      `zot ${args.join(' ')}: exit ${result.code}, output ` +
        `${JSON.stringify(result.stdout.slice(0, 80))}\n${result.stderr.trim()}`,
    );
  }
}

/** A row in MiB: both runs' peak RSS, each within MAX_RSS_MIB. */
function rssRow(plain, tool) {
  const baseline = summarize(plain);
  const subject = summarize(tool);
  return {
    metric: 'peak RSS: plain run (baseline) and tool run (subject)',
    unit: 'MiB',
    baseline,
    subject,
    ratio: Math.round((subject.median / baseline.median) * 1000) / 1000,
    target: `both <= ${MAX_RSS_MIB} MiB`,
    pass: baseline.median <= MAX_RSS_MIB && subject.median <= MAX_RSS_MIB,
  };
}

export async function run(options) {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'small.txt'), FILE_TEXT);
  try {
    const common = ['--no-session', '--provider', 'anthropic', '--base-url', server.url];
    common.push('--api-key', 'k');
    const plainArgs = [ZOT_MAIN, '-p', 'say something', ...common];
    const toolArgs = [ZOT_MAIN, '-p', 'read small.txt', ...common];
    const env = { ...process.env, ZOT_HOME: home };
    const timed = async (args) => {
      const result = await timedNode(args, { env, cwd });
      check(result, args);
      return result.ms;
    };
    const fns = { plain: () => timed(plainArgs), tool: () => timed(toolArgs) };
    await interleave(rounds(options, 3, 1), fns); // warm-up: disk cache, compile cache
    const samples = await interleave(rounds(options, 30, 8), fns);
    if (server.failures.length > 0) throw new Error(server.failures[0]);
    const rows = [
      row(
        'zot -p: one read tool call vs plain, spawn -> exit',
        samples.plain,
        samples.tool,
        TARGET,
      ),
    ];
    if (existsSync(TIME_BIN)) {
      const rss = await interleave(rounds(options, 10, 3), {
        plain: () => peakRssMiB(plainArgs, { env, cwd, check: answered }),
        tool: () => peakRssMiB(toolArgs, { env, cwd, check: answered }),
      });
      rows.push(rssRow(rss.plain, rss.tool));
    } else {
      rows.push({
        metric: 'peak RSS',
        unit: 'MiB',
        baseline: summarize([NaN]),
        subject: summarize([NaN]),
        ratio: NaN,
        target: `both <= ${MAX_RSS_MIB} MiB`,
        pass: null,
        note: `skipped: ${TIME_BIN} is not installed`,
      });
    }
    return { name: 'print-tool', rows };
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
