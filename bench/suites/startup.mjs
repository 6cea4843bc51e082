// Startup: wall time of `zot --version` and `zot --help` against `node -e 0`, and of a whole
// `zot -p hello` run against `node -e 0` and against a bare node:http script that sends the same
// request: from spawn to the request's arrival at a local server, and from spawn to exit. All
// spawned the same way and interleaved in the same rounds. Then the peak RSS of `zot -p hello`
// (GNU time's %M), in rounds of its own, when /usr/bin/time is there.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  interleave,
  peakRssMiB,
  ROOT,
  row,
  rounds,
  summarize,
  TIME_BIN,
  timedNode,
  ZOT_MAIN,
} from '../lib/common.mjs';

const TARGET = { maxRatio: 1.6 };
const PRINT_TARGET = { maxRatio: 1.3 };
/** Issue 14's fast-path targets: a whole print run vs a bare node, and vs node:http doing the same. */
const PRINT_VS_NODE = { maxRatio: 1.5 };
const PRINT_EXIT_TARGET = { maxRatio: 1.1 };
const RSS_LIMIT_MIB = 64;
const RAW = fileURLToPath(new URL('../support/raw-http.mjs', import.meta.url));
// A recorded Anthropic stream (text deltas, ping, usage), sent whole to every request.
const REPLY = readFileSync(join(ROOT, 'packages/zot/test/fixtures/streams/anthropic-text.sse'));
const REPLY_TEXT = "I'm Claude, an AI assistant made by Anthropic.";

async function timed(args, check, env) {
  const result = await timedNode(args, { env });
  if (result.code !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  check?.(result.stdout);
  return result.ms;
}

/** A report-only row. */
const info = (metric, baseline, subject) => ({
  ...row(metric, baseline, subject, { maxRatio: Infinity }),
  target: 'report only',
  pass: null,
});

const expect = (what, test) => (stdout) => {
  if (!test(stdout)) throw new Error(`unexpected ${what} output: ${stdout.slice(0, 200)}`);
};

/** A local server that notes when each request arrives and answers with REPLY. */
async function startServer() {
  const server = createServer((req, res) => {
    server.arrivals.push({ at: performance.now(), path: req.url });
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      server.bodies.push(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(REPLY);
    });
  });
  server.arrivals = [];
  server.bodies = [];
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.url = `http://127.0.0.1:${server.address().port}`;
  return server;
}

/** Runs one child; returns ms to exit and pushes ms to the request's arrival into `toRequest`. */
async function printRun(server, args, env, cwd, toRequest) {
  const before = server.arrivals.length;
  const result = await timedNode(args, { env, cwd });
  const arrivals = server.arrivals.slice(before);
  if (result.code !== 0 || arrivals.length !== 1 || !result.stdout.startsWith(REPLY_TEXT)) {
    throw new Error(
      `node ${args.join(' ')}: exit ${result.code}, ${arrivals.length} requests, ` +
        `output ${JSON.stringify(result.stdout.slice(0, 80))}\n${result.stderr.trim()}`,
    );
  }
  toRequest.push(arrivals[0].at - result.started);
  return result.ms;
}

/** The peak-RSS row: zot -p hello against the node:http script, and the absolute limit. */
async function rssRow(options, zot, raw) {
  const samples = await interleave(rounds(options, 9, 3), {
    raw: () => peakRssMiB(raw.args, raw),
    zot: () => peakRssMiB(zot.args, zot),
  });
  const baseline = summarize(samples.raw);
  const subject = summarize(samples.zot);
  return {
    metric: 'zot -p hello: peak RSS vs node:http (MiB)',
    unit: 'MiB',
    baseline,
    subject,
    ratio: Math.round((subject.median / baseline.median) * 1000) / 1000,
    target: `median <= ${RSS_LIMIT_MIB} MiB`,
    pass: subject.median <= RSS_LIMIT_MIB,
  };
}

export async function run(options) {
  const server = await startServer();
  // An empty ZOT_HOME and working directory: no extensions, settings or project files.
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  try {
    const zotArgs = [ZOT_MAIN, '-p', 'hello', '--no-session'];
    zotArgs.push('--provider', 'anthropic', '--base-url', server.url, '--api-key', 'k');
    // The code cache (util/code-cache.ts) in the run's own directory: the warm-up fills it.
    const zotEnv = { ...process.env, ZOT_HOME: home, XDG_CACHE_HOME: join(dir, 'cache') };
    // One zot run first, to capture the exact request the baseline will send.
    await printRun(server, zotArgs, zotEnv, cwd, []);
    const rawArgs = [RAW, `${server.url}${server.arrivals[0].path}`];
    const rawEnv = { ...process.env, BENCH_BODY: server.bodies[0] };
    const toRequest = { raw: [], zot: [], noCache: [], rawNoCa: [], zotNoCa: [] };
    const fns = {
      baseline: () => timed(['-e', '0']),
      version: () =>
        timed(
          [ZOT_MAIN, '--version'],
          expect('--version', (out) => out.startsWith('zot ')),
        ),
      help: () =>
        timed(
          [ZOT_MAIN, '--help'],
          expect('--help', (out) => out.length > 100),
        ),
      raw: () => printRun(server, rawArgs, rawEnv, cwd, toRequest.raw),
      print: () => printRun(server, zotArgs, zotEnv, cwd, toRequest.zot),
      printNoCache: () =>
        printRun(server, zotArgs, { ...zotEnv, ZOT_CODE_CACHE: '0' }, cwd, toRequest.noCache),
    };
    // This machine's environment may set NODE_EXTRA_CA_CERTS, which makes every Node start read
    // and parse that file (about 60 ms here) and so shrinks every ratio above: the same runs
    // without it are reported too.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS !== undefined;
    if (extraCa) {
      const noCa = (env) => {
        const copy = { ...env };
        delete copy.NODE_EXTRA_CA_CERTS;
        return copy;
      };
      fns.baselineNoCa = () => timed(['-e', '0'], undefined, noCa(process.env));
      fns.rawNoCa = () => printRun(server, rawArgs, noCa(rawEnv), cwd, toRequest.rawNoCa);
      fns.printNoCa = () => printRun(server, zotArgs, noCa(zotEnv), cwd, toRequest.zotNoCa);
    }
    await interleave(rounds(options, 3, 1), fns); // warm-up: disk cache, compile cache
    for (const arrivals of Object.values(toRequest)) arrivals.length = 0;
    const samples = await interleave(rounds(options, 30, 8), fns);
    const rows = [];
    if (existsSync(TIME_BIN)) {
      const zot = { args: zotArgs, env: zotEnv, cwd };
      rows.push(await rssRow(options, zot, { args: rawArgs, env: rawEnv, cwd }));
    } else {
      process.stderr.write(
        `bench: startup: no ${TIME_BIN} (Debian package time): peak RSS skipped\n`,
      );
    }
    return {
      name: 'startup',
      rows: [
        row('zot --version vs node -e 0', samples.baseline, samples.version, TARGET),
        row('zot --help vs node -e 0', samples.baseline, samples.help, TARGET),
        row(
          'zot -p hello: spawn -> request at server vs node:http',
          toRequest.raw,
          toRequest.zot,
          PRINT_TARGET,
        ),
        row(
          'zot -p hello: spawn -> exit vs node:http',
          samples.raw,
          samples.print,
          PRINT_EXIT_TARGET,
          { requestBytes: server.bodies[0].length },
        ),
        row(
          'zot -p hello: spawn -> exit vs node -e 0',
          samples.baseline,
          samples.print,
          PRINT_VS_NODE,
        ),
        info(
          'zot -p hello, no code cache (ZOT_CODE_CACHE=0): spawn -> exit vs node:http',
          samples.raw,
          samples.printNoCache,
        ),
        ...(extraCa
          ? [
              info(
                'without NODE_EXTRA_CA_CERTS: zot -p hello spawn -> exit vs node:http',
                samples.rawNoCa,
                samples.printNoCa,
              ),
              info(
                'without NODE_EXTRA_CA_CERTS: zot -p hello spawn -> exit vs node -e 0',
                samples.baselineNoCa,
                samples.printNoCa,
              ),
            ]
          : []),
        ...rows,
      ],
    };
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
