// What the sandbox costs: the same `bash` tool call sandboxed and unsandboxed, and a scoped
// extension's start-up and tool round trip against the same extension unscoped, interleaved in
// the same rounds, in-process on the compiled code (BENCH_ZOT_SRC switches the build). Each row
// is one entry of ROWS with its own set-up.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { interleave, ratioInterval, rounds, summarize, timedNode } from '../lib/common.mjs';
import {
  DIST_SRC,
  extensionEnv,
  NODE_FIXTURE,
  PY_FIXTURE,
  startHost,
  writeTrivialPrograms,
} from '../lib/ext.mjs';

const load = (path) => import(pathToFileURL(join(DIST_SRC, path)).href);

/** The bash target of issue 24: at most 1.5x, or at most 15 ms added, at the median. */
const BASH_TARGET = { maxRatio: 1.5, maxAddedMs: 15 };
/** A scoped extension against the same one unscoped: start-up at most 1.3x, a call 1.1x. */
const EXT_STARTUP_TARGET = { maxRatio: 1.3 };
const EXT_CALL_TARGET = { maxRatio: 1.1 };
const STARTUP_DRIVER = fileURLToPath(new URL('../support/ext-startup-driver.mjs', import.meta.url));

/**
 * A row whose target is a ratio or an absolute addition, either one passing; `target` null
 * makes it report-only.
 */
function costRow(metric, baselineSamples, subjectSamples, target, note) {
  const baseline = summarize(baselineSamples);
  const subject = summarize(subjectSamples);
  const ratio = Math.round((subject.median / baseline.median) * 1000) / 1000;
  const added = subject.median - baseline.median;
  const interval = ratioInterval(baselineSamples, subjectSamples);
  note = `${note ? `${note}; ` : ''}ratio 95% interval ${interval.low}-${interval.high}`;
  const extra = { note };
  if (!target)
    return { metric, unit: 'ms', baseline, subject, ratio, target: 'none', pass: null, ...extra };
  return {
    metric,
    unit: 'ms',
    baseline,
    subject,
    ratio,
    target:
      target.maxAddedMs === undefined
        ? `ratio <= ${target.maxRatio}`
        : `ratio <= ${target.maxRatio} or +${target.maxAddedMs} ms`,
    pass: ratio <= target.maxRatio || added <= (target.maxAddedMs ?? -Infinity),
    note: `${note}; added ${added.toFixed(Math.abs(added) < 1 ? 3 : 1)} ms at the median`,
  };
}

/** A project, a home with the usual secrets, a ZOT_HOME: what a real run's policy covers. */
function makeBox() {
  const base = mkdtempSync(join(tmpdir(), 'zot-bench-sandbox-'));
  const home = join(base, 'home');
  const project = join(home, 'project');
  for (const dir of [join(home, '.ssh'), join(home, '.aws'), join(home, '.zot'), project])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.netrc'), 'machine x password y\n');
  writeFileSync(join(project, 'small.txt'), 'alpha\nbeta\ngamma\n');
  execFileSync('git', ['init', '-q', project]);
  execFileSync('git', ['-C', project, 'add', 'small.txt']);
  return { base, home, project, zotHome: join(home, '.zot') };
}

/**
 * One bash tool per setting; `run(command)` resolves the call's wall time in ms, and adds the
 * CPU time this process spent on it (zot's own share: user + system) to `cpu`.
 */
async function bashRunner(box, settings, cpu = { ms: 0, calls: 0 }) {
  const { createBashTool } = await load('tools/bash.js');
  const { SandboxController } = await load('security/sandbox/controller.js');
  const { userSandbox } = await load('security/sandbox/settings.js');
  const sandbox = new SandboxController({
    settings: userSandbox(settings),
    project: box.project,
    home: box.home,
    zotHome: box.zotHome,
  });
  if (settings.mode !== 'off') {
    const probe = await sandbox.check();
    if (!probe.ok) throw new Error(`the sandbox cannot start here: ${probe.problem?.message}`);
  }
  const tool = createBashTool({ sandbox, outputDir: join(box.base, 'out') });
  let calls = 0;
  return async (command) => {
    const context = {
      cwd: box.project,
      toolCallId: `b${calls++}`,
      signal: new AbortController().signal,
      onProgress: () => undefined,
    };
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const output = await tool.execute({ command }, context);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    cpu.ms += (used.user + used.system) / 1000;
    cpu.calls++;
    if (output.isError) throw new Error(`bash ${command}: ${output.content[0]?.text}`);
    return ms;
  };
}

/** A bash row: `command` through the unsandboxed tool (baseline) and the sandboxed one (subject). */
const bashRow = (metric, command, sandbox, target, note) => ({
  metric,
  target,
  note,
  async prepare(box) {
    const cpu = { plain: { ms: 0, calls: 0 }, confined: { ms: 0, calls: 0 } };
    const plain = await bashRunner(box, { mode: 'off' }, cpu.plain);
    const confined = await bashRunner(box, { mode: 'required', ...sandbox }, cpu.confined);
    const perCall = (side) => (side.ms / Math.max(1, side.calls)).toFixed(2);
    return {
      baseline: () => plain(command),
      subject: () => confined(command),
      // Warm-up calls included: CPU time hardly depends on them, unlike wall time under load.
      note: () => `zot's own CPU per call ${perCall(cpu.plain)} vs ${perCall(cpu.confined)} ms`,
    };
  },
});

/**
 * The floor under the bash rows: bwrap with the arguments zot gives it, spawned directly (no
 * tool, no policy, no launcher), against bash spawned directly; both run the same marked shell
 * the tool runs. What this row adds is bwrap's own cost, which zot cannot remove.
 */
const bwrapFloorRow = {
  metric: "bare bwrap with zot's arguments vs bare bash, `true` (no zot: the floor)",
  target: null,
  async prepare(box) {
    const { SandboxController } = await load('security/sandbox/controller.js');
    const { userSandbox } = await load('security/sandbox/settings.js');
    const { sandboxedCommand } = await load('security/launcher.js');
    const sandbox = new SandboxController({
      settings: userSandbox({ mode: 'required' }),
      project: box.project,
      home: box.home,
      zotHome: box.zotHome,
    });
    const plan = await sandbox.plan();
    if (plan.kind !== 'sandboxed') throw new Error(`the sandbox cannot start here: ${plan.kind}`);
    const merge = 'exec "$0" -c "$1" "$2" 2>&1';
    const argv = ['/bin/bash', '-c', merge, '/bin/bash', 'true', 'bash'];
    const markingArgv = ['/bin/bash', '-c', `printf . >&3; exec 3>&-; ${merge}`, ...argv.slice(3)];
    const confined = sandboxedCommand(
      { argv, markingArgv, cwd: box.project, env: process.env },
      plan.launch,
    );
    const timed = (command, env, marker) =>
      new Promise((resolve, reject) => {
        const started = performance.now();
        const stdio = ['ignore', 'pipe', 'pipe', ...(marker ? ['pipe'] : [])];
        const child = spawn(command[0], command.slice(1), {
          cwd: box.project,
          env,
          detached: true,
          stdio,
        });
        for (const stream of child.stdio.slice(1)) stream?.resume();
        child.once('error', reject);
        child.once('close', (code) =>
          code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}`)),
        );
      });
    return {
      baseline: () => timed(argv, process.env, false),
      subject: () => timed(confined.argv, confined.env, true),
    };
  },
};

/**
 * Two copies of one extension, `plain` (no permissions block: unscoped) and `scoped` (an empty
 * block: nothing beyond its own directory and data), each program copied into its directory,
 * since a scoped extension sees nothing else of the file system.
 */
function extensionPair(box, language, name, program, args) {
  const dirs = {};
  for (const kind of ['plain', 'scoped']) {
    const dir = join(box.base, 'ext', `${kind}-${name}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(program, join(dir, basename(program)));
    const manifest = {
      name: `${kind}-${name}`,
      version: '1.0.0',
      exec: language === 'python' ? 'python3' : 'node',
      args: [basename(program), ...args(`${kind}-${name}`)],
      ...(kind === 'scoped' ? { permissions: {} } : {}),
    };
    writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest, null, 2));
    dirs[kind] = dir;
  }
  return dirs;
}

/**
 * One start-up: a fresh driver process times `host.start()` until the extension is ready; its
 * CPU time then (zot's own share: far less sensitive to the machine's load) goes to `cpu`.
 */
async function startupSample(box, dir, cpu = []) {
  const result = await timedNode([STARTUP_DRIVER, 'host', box.base, dir], {
    env: extensionEnv(),
    timeoutMs: 60_000,
  });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || !last.startsWith('{'))
    throw new Error(`start-up driver failed (status ${result.code}): ${result.stderr.trim()}`);
  const { ms, cpuMs } = JSON.parse(last);
  if (cpuMs !== undefined) cpu.push(cpuMs);
  return ms;
}

/** Start-up of a trivial extension (ready frame), scoped vs unscoped. */
const extStartupRow = (language) => ({
  metric: `${language} extension start-up to ready: scoped (bwrap) vs unscoped`,
  target: EXT_STARTUP_TARGET,
  note: 'a fresh host process per sample; the scoped start includes bwrap setting up its root',
  async prepare(box) {
    const programs = writeTrivialPrograms(join(box.base, 'programs'));
    const program = language === 'python' ? programs.python : programs.node;
    const dirs = extensionPair(box, language, `trivial-${language}`, program, (name) => [name]);
    const cpu = { plain: [], scoped: [] };
    const median = (xs) => summarize(xs.length > 0 ? xs : [0]).median.toFixed(1);
    return {
      baseline: () => startupSample(box, dirs.plain, cpu.plain),
      subject: () => startupSample(box, dirs.scoped, cpu.scoped),
      // Warm-up starts included, as in the bash rows.
      note: () => `zot's own CPU per start ${median(cpu.plain)} vs ${median(cpu.scoped)} ms`,
    };
  },
});

/** Calls per sample of the round-trip rows (one call is tens of microseconds). */
const CALLS_PER_SAMPLE = 40;

/** A tool call's round trip through the host (`tool.execute`), scoped vs unscoped. */
const extCallRow = (language) => ({
  metric: `${language} extension tool round trip: scoped (bwrap) vs unscoped`,
  target: EXT_CALL_TARGET,
  // A sample takes milliseconds: enough of them to tell 1.1x from noise.
  rounds: [200, 60],
  note: `each sample is the mean of ${CALLS_PER_SAMPLE} calls; both extensions run in one host`,
  async prepare(box) {
    const program = language === 'python' ? PY_FIXTURE : NODE_FIXTURE;
    const dirs = extensionPair(box, language, `echo-${language}`, program, (name) => [
      'well-behaved',
      JSON.stringify({ name, tools: [`echo_${name.replace(/-/g, '_')}`] }),
    ]);
    const host = await startHost(box.base, [dirs.plain, dirs.scoped], { env: extensionEnv() });
    const signal = new AbortController().signal;
    let seq = 0;
    const caller = (kind) => {
      const name = `echo_${kind}_echo_${language}`;
      const tool = host.toolSource.find(name);
      if (!tool) throw new Error(`tool ${name} not registered`);
      return async () => {
        const started = performance.now();
        for (let i = 0; i < CALLS_PER_SAMPLE; i++) {
          const args = { path: 'src/index.ts', line: i, pattern: 'hello world' };
          const output = await tool.execute(args, {
            cwd: box.project,
            toolCallId: `c${++seq}`,
            signal,
            onProgress: () => undefined,
          });
          if (output.isError || output.content[0]?.text !== `${name}:${JSON.stringify(args)}`)
            throw new Error(`unexpected tool output: ${JSON.stringify(output)}`);
        }
        return (performance.now() - started) / CALLS_PER_SAMPLE;
      };
    };
    return {
      baseline: caller('plain'),
      subject: caller('scoped'),
      cleanup: () => host.shutdown(),
    };
  },
});

const ROWS = [
  bashRow('bash `true`: sandboxed vs not', 'true', {}, BASH_TARGET),
  bashRow(
    'bash `ls -la && wc -l small.txt`: sandboxed vs not',
    'ls -la && wc -l small.txt',
    {},
    BASH_TARGET,
  ),
  bashRow(
    'bash `git status` (a small repository): sandboxed vs not',
    'git status',
    {},
    BASH_TARGET,
  ),
  bwrapFloorRow,
  bashRow('bash `true`, network: true (host network shared)', 'true', { network: true }, null),
  bashRow(
    'bash `true`, network: a host list (proxy and relay)',
    'true',
    { network: ['example.com'] },
    null,
    'the relay is a Node start inside the sandbox',
  ),
  extStartupRow('node'),
  extStartupRow('python'),
  extCallRow('node'),
  extCallRow('python'),
];

/** BENCH_SANDBOX_ROWS=text runs only the rows whose metric contains it (case-insensitive). */
const only = (process.env.BENCH_SANDBOX_ROWS ?? '').toLowerCase();

export async function run(options) {
  const box = makeBox();
  try {
    const rows = [];
    for (const spec of ROWS.filter((row) => row.metric.toLowerCase().includes(only))) {
      const { baseline, subject, cleanup, note: extraNote } = await spec.prepare(box);
      const fns = { baseline, subject };
      try {
        await interleave(rounds(options, 3, 1), fns); // warm-up: page cache, the probe, JIT
        const [full, quick] = spec.rounds ?? [30, 8];
        const samples = await interleave(rounds(options, full, quick), fns);
        // The machine's load while the row ran: the figure to read its absolute times against.
        const load = `load average ${loadavg()[0].toFixed(1)}`;
        const note = [spec.note, extraNote?.(), load].filter(Boolean).join('; ');
        rows.push(costRow(spec.metric, samples.baseline, samples.subject, spec.target, note));
      } finally {
        await cleanup?.();
      }
    }
    return { name: 'sandbox', rows };
  } finally {
    rmSync(box.base, { recursive: true, force: true });
  }
}
