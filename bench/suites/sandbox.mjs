// What the sandbox costs: the same `bash` tool call sandboxed and unsandboxed, interleaved in the
// same rounds, in-process on the compiled tool (BENCH_ZOT_SRC switches the build). Each row is
// one entry of ROWS with its own set-up, so rows for other confined processes (a scoped
// extension's start-up and tool round trip against an unscoped one) are added the same way.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, rounds, summarize } from '../lib/common.mjs';
import { DIST_SRC } from '../lib/ext.mjs';

const load = (path) => import(pathToFileURL(join(DIST_SRC, path)).href);

/** The bash target of issue 24: at most 1.5x, or at most 15 ms added, at the median. */
const BASH_TARGET = { maxRatio: 1.5, maxAddedMs: 15 };

/**
 * A row whose target is a ratio or an absolute addition, either one passing; `target` null
 * makes it report-only.
 */
function costRow(metric, baselineSamples, subjectSamples, target, note) {
  const baseline = summarize(baselineSamples);
  const subject = summarize(subjectSamples);
  const ratio = Math.round((subject.median / baseline.median) * 1000) / 1000;
  const added = subject.median - baseline.median;
  const extra = note ? { note } : {};
  if (!target)
    return { metric, unit: 'ms', baseline, subject, ratio, target: 'none', pass: null, ...extra };
  return {
    metric,
    unit: 'ms',
    baseline,
    subject,
    ratio,
    target: `ratio <= ${target.maxRatio} or +${target.maxAddedMs} ms`,
    pass: ratio <= target.maxRatio || added <= target.maxAddedMs,
    note: `${note ? `${note}; ` : ''}added ${added.toFixed(1)} ms at the median`,
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

/** One bash tool per setting; `run(command)` resolves the call's wall time in ms. */
async function bashRunner(box, settings) {
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
    const started = performance.now();
    const output = await tool.execute({ command }, context);
    const ms = performance.now() - started;
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
    const plain = await bashRunner(box, { mode: 'off' });
    const confined = await bashRunner(box, { mode: 'required', ...sandbox });
    return { baseline: () => plain(command), subject: () => confined(command) };
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
  bashRow('bash `true`, network: true (host network shared)', 'true', { network: true }, null),
  bashRow(
    'bash `true`, network: a host list (proxy and relay)',
    'true',
    { network: ['example.com'] },
    null,
    'the relay is a Node start inside the sandbox',
  ),
];

export async function run(options) {
  const box = makeBox();
  try {
    const rows = [];
    for (const spec of ROWS) {
      const { baseline, subject } = await spec.prepare(box);
      const fns = { baseline, subject };
      await interleave(rounds(options, 3, 1), fns); // warm-up: page cache, the probe, JIT
      const samples = await interleave(rounds(options, 30, 8), fns);
      rows.push(costRow(spec.metric, samples.baseline, samples.subject, spec.target, spec.note));
    }
    return { name: 'sandbox', rows };
  } finally {
    rmSync(box.base, { recursive: true, force: true });
  }
}
