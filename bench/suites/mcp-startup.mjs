// What the MCP bridge costs a run that uses no MCP tool: whole `zot -p hello` runs with the bridge
// installed in ZOT_HOME and one slow stdio server (packages/zot/test/fixtures/mcp-slow-server.mjs,
// which reads nothing for SERVER_DELAY_MS, as a server started through `npx` takes seconds),
// against the same run with `--no-ext`, interleaved in the same rounds. A local server answers
// every request with a recorded Anthropic stream and notes when each arrives, on the clock of the
// spawn. The bridge's cache holds the server's tool list from the warm-up run, so the runs
// measured are the ones every run after the first is: its tools are registered at once and
// nothing waits for the server. The local server answers at once, within zot's held-start delay
// (ZOT_EXT_HELD_START_MS, 100 ms): in these runs the bridge, held back, is never spawned, as in
// any run answered that quickly. Report only: a first run (no cache), which must wait for the
// server's listing, against the server's own start (its spawn to its listing, from its stamps);
// and the floor any extension has, one trivial extension (hello, one command, ready) instead of
// the bridge, to show how much of the bridge's cost is a second Node process starting at all.
// The warm-up runs also leave zot's memory of what each extension registered
// ($ZOT_HOME/ext-registrations): later runs offer those tools at once and need not wait for the
// extension to start. Report only: the CPU time a run spends before its request (user + system,
// from bench/support/cpu-at-request.cjs, preloaded in every run), which on a loaded machine
// shows zot's own cost more steadily than wall time.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ROOT, row, rounds, timedNode, ZOT_MAIN } from '../lib/common.mjs';
import { assertNoLeftovers, makeTrivial, tempRoot, writeTrivialPrograms } from '../lib/ext.mjs';

const TARGET = { maxRatio: 1.2 };
const SERVER_DELAY_MS = 3000;
const SLOW_SERVER = join(ROOT, 'packages/zot/test/fixtures/mcp-slow-server.mjs');
const MCP_EXT = join(ROOT, 'examples/extensions/mcp');
const REPLY = readFileSync(join(ROOT, 'packages/zot/test/fixtures/streams/anthropic-text.sse'));
const REPLY_TEXT = "I'm Claude, an AI assistant made by Anthropic.";
const CPU_PRELOAD = join(ROOT, 'bench/support/cpu-at-request.cjs');

/** A report-only row. */
const info = (metric, baseline, subject) => ({
  ...row(metric, baseline, subject, { maxRatio: Infinity }),
  target: 'report only',
  pass: null,
});

async function startLlm() {
  const server = createServer((req, res) => {
    server.arrivals.push(performance.now());
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(REPLY);
    });
  });
  server.arrivals = [];
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.url = `http://127.0.0.1:${server.address().port}`;
  return server;
}

/** One whole run; pushes ms to the request's arrival and to the exit, checks the answer. */
async function printRun(llm, args, env, cwd, times) {
  const before = llm.arrivals.length;
  const wallStart = Date.now();
  rmSync(env.BENCH_CPU_AT_REQUEST, { force: true });
  const result = await timedNode(['-r', CPU_PRELOAD, ...args], { env, cwd });
  const arrivals = llm.arrivals.slice(before);
  if (result.code !== 0 || arrivals.length !== 1 || !result.stdout.startsWith(REPLY_TEXT)) {
    throw new Error(
      `zot ${args.slice(1).join(' ')}: exit ${result.code}, ${arrivals.length} requests, ` +
        `output ${JSON.stringify(result.stdout.slice(0, 80))}\n${result.stderr.trim()}`,
    );
  }
  times.request.push(arrivals[0] - result.started);
  times.exit.push(result.ms);
  times.cpu.push(Number(readFileSync(env.BENCH_CPU_AT_REQUEST, 'utf8')));
  return { wallStart, stderr: result.stderr };
}

export async function run(options) {
  const llm = await startLlm();
  const root = tempRoot('mcp-startup');
  const home = join(root.dir, 'home');
  const cwd = join(root.dir, 'work');
  const installed = join(home, 'extensions', 'mcp');
  mkdirSync(installed, { recursive: true });
  mkdirSync(cwd);
  // The installed copy, as `zot ext install` leaves it: the manifest and the bundle.
  cpSync(join(MCP_EXT, 'extension.json'), join(installed, 'extension.json'));
  cpSync(join(MCP_EXT, 'dist'), join(installed, 'dist'), { recursive: true });
  const control = join(root.dir, 'control.json');
  const stamps = join(root.dir, 'stamps.jsonl');
  const tools = ['echo', 'search', 'fetch', 'summarize'];
  writeFileSync(control, JSON.stringify({ tools, delayMs: SERVER_DELAY_MS }));
  const serverArgs = [SLOW_SERVER, '--control', control];
  writeFileSync(
    join(home, 'mcp.json'),
    JSON.stringify({
      mcpServers: {
        slow: { command: process.execPath, args: [...serverArgs, '--stamps', stamps] },
      },
    }),
  );
  const cache = join(home, 'mcp-cache');
  const args = [ZOT_MAIN, '-p', 'hello', '--no-session', '--provider', 'anthropic'];
  args.push('--base-url', llm.url, '--api-key', 'k');
  // The code cache (util/code-cache.ts) in the run's own directory: the warm-up fills it.
  const env = {
    ...process.env,
    ZOT_HOME: home,
    XDG_CACHE_HOME: join(root.dir, 'cache'),
    BENCH_CPU_AT_REQUEST: join(root.dir, 'cpu-at-request'),
  };
  const times = () => ({ request: [], exit: [], cpu: [] });
  const t = { noExt: times(), bridge: times(), trivial: times(), firstRun: times() };
  const trivial = makeTrivial(root.dir, writeTrivialPrograms(root.dir), 'node', 'trivial');
  const serverStart = [];
  try {
    // The warm-up's first run has no cache: it waits for the listing and fills the cache.
    await printRun(llm, args, env, cwd, times());
    if (!existsSync(cache)) throw new Error(`the first run left no cache in ${cache}`);
    const fns = {
      noExt: () => printRun(llm, [...args, '--no-ext'], env, cwd, t.noExt),
      bridge: () => printRun(llm, args, env, cwd, t.bridge),
      trivial: () => printRun(llm, [...args, '--no-ext', '--ext', trivial], env, cwd, t.trivial),
    };
    await printRun(llm, args, env, cwd, times());
    await printRun(llm, [...args, '--no-ext'], env, cwd, times());
    await fns.trivial(); // zot remembers its registrations from then on, as it does the bridge's
    t.trivial.request.length = 0;
    t.trivial.exit.length = 0;
    const n = rounds(options, 20, 6);
    const names = Object.keys(fns);
    for (let round = 0; round < n; round++) {
      for (let i = 0; i < names.length; i++) await fns[names[(round + i) % names.length]]();
    }
    // First runs: no cache, so the bridge waits for the server's listing before `ready`, and zot
    // (which remembers nothing of the bridge either) waits for that.
    for (let round = 0; round < rounds(options, 4, 2); round++) {
      rmSync(cache, { recursive: true, force: true });
      rmSync(join(home, 'ext-registrations'), { recursive: true, force: true });
      writeFileSync(stamps, '');
      await printRun(llm, args, env, cwd, t.firstRun);
      const events = readFileSync(stamps, 'utf8').trim().split('\n').map(JSON.parse);
      const at = (event) => events.find((e) => e.event === event)?.at;
      if (at('listed') === undefined) throw new Error('a first run did not wait for the listing');
      serverStart.push(at('listed') - at('spawned'));
    }
  } finally {
    await new Promise((resolve) => llm.close(resolve));
  }
  try {
    await assertNoLeftovers(root.dir);
  } finally {
    root.cleanup();
  }
  const metric = (what) => `zot -p hello, MCP bridge + a server slow to start, ${what}`;
  return {
    name: 'mcp-startup',
    rows: [
      row(
        metric('cached tools: spawn -> request vs --no-ext'),
        t.noExt.request,
        t.bridge.request,
        TARGET,
      ),
      row(metric('cached tools: spawn -> exit vs --no-ext'), t.noExt.exit, t.bridge.exit, TARGET),
      info(
        metric('cached tools: CPU ms before the request vs --no-ext'),
        t.noExt.cpu,
        t.bridge.cpu,
      ),
      info(
        'zot -p hello, one trivial extension instead (the floor): spawn -> request vs --no-ext',
        t.noExt.request,
        t.trivial.request,
      ),
      info(
        'zot -p hello, one trivial extension instead (the floor): spawn -> exit vs --no-ext',
        t.noExt.exit,
        t.trivial.exit,
      ),
      info(
        metric('first run (no cache): spawn -> request vs the server spawn -> listed'),
        serverStart,
        t.firstRun.request,
      ),
    ],
  };
}
