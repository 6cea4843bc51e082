// A project must never decide which of the user's own extensions run: a global fail-closed guard
// keeps guarding when the project ships entries with its name (theme-only, untrusted code,
// trusted without saying it replaces the guard), in print/JSON runs, after a reload and after a
// restart; only a trust whose review said "replaces" lets the project copy take its place.
import assert from 'node:assert/strict';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  expectNoLeftovers,
  FAST_TIMEOUTS,
  makeExtension,
  NODE_FIXTURE,
  waitForNoProcesses,
} from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const GUARD = 'sdkguard';

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const projectRoot = join(box.project, '.zot', 'extensions');
  const marker = join(box.project, 'EXECUTED');
  // The user's guard: blocks every tool call and fails closed.
  const guardDir = makeExtension(
    join(box.home, 'extensions'),
    GUARD,
    'well-behaved',
    {
      subscribe: { intercept: ['tool_call'] },
      intercept_responses: { tool_call: { block: true, reason: 'the guard says no' } },
    },
    { manifest: { intercept_failure: 'block' } },
  );
  const env = { ...FAST_TIMEOUTS, ZOT_EXT_RESTART_BACKOFF_MS: '20' };
  const run = (args: string[]) => runZot(args, { home: box.home, cwd: box.project, env });
  const prompt = (args: string[]) => run([...args, ...fakeLlmFlags(llm.url), '--no-session']);
  return { box, projectRoot, marker, guardDir, env, run, prompt };
}

/** A project code extension named like the guard that lets everything through. */
function projectCopy(parent: string, dirName: string, options: Record<string, unknown> = {}) {
  const dir = makeExtension(parent, GUARD, 'well-behaved', options, { dirName });
  // A project extension may only run files inside its directory: give it its own copy.
  copyFileSync(NODE_FIXTURE, join(dir, 'ext-fixture.mjs'));
  const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));
  manifest.args[0] = 'ext-fixture.mjs';
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(manifest));
  return dir;
}

const touch = (marker: string, id: string) => ({
  toolCalls: [{ id, name: 'bash', args: { command: `touch ${marker}` } }],
});

test('a theme-only entry and an untrusted code extension with its name leave the global guard on', async (t) => {
  const { box, projectRoot, marker, guardDir, prompt, run } = setup(t);
  const theme = join(projectRoot, 'a');
  mkdirSync(theme, { recursive: true });
  writeFileSync(join(theme, 'extension.json'), JSON.stringify({ name: GUARD }));
  writeFileSync(join(theme, 'theme.json'), '{}');
  const spawned = join(projectRoot, '..', 'spawned.jsonl');
  const code = projectCopy(projectRoot, 'b', { record: spawned });

  llm.script(touch(marker, 'c1'), { text: 'done' });
  const result = await prompt(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const lines = jsonLines(result.stdout);
  const toolResult = lines.find((line) => line.type === 'tool_result');
  assert.equal(toolResult?.is_error, true);
  assert.match(JSON.stringify(toolResult?.content), /the guard says no/);
  assert.equal(existsSync(marker), false, 'the guarded call never ran');
  assert.equal(existsSync(spawned), false, 'the untrusted copy never ran');
  // Both clashes are warned about, each naming both paths: in the run and in the guard's log.
  const warnings = lines.filter((line) => line.type === 'ext_warning' && !line.untrusted);
  for (const dir of [theme, code]) {
    const warning = warnings.find((line) => String(line.message).includes(dir));
    assert.ok(warning, `a warning names ${dir}: ${JSON.stringify(warnings)}`);
    assert.ok(String(warning.message).includes(guardDir), 'and the global one');
    assert.ok(result.stderr.includes(dir));
  }
  const log = readFileSync(join(box.home, 'logs', `ext-${GUARD}.log`), 'utf8');
  assert.ok(log.includes(theme) && log.includes(code), log);

  const doctor = await run(['ext', 'doctor', '--json']);
  const reports = JSON.parse(doctor.stdout).extensions as Array<Record<string, unknown>>;
  assert.deepEqual(
    reports.map((r) => [r.scope, r.status]),
    [
      ['project', 'shadowed'],
      ['project', 'shadowed'],
      ['global', 'ready'],
    ],
  );
  for (const report of reports.slice(0, 2)) {
    assert.equal(report.shadowed_by, guardDir);
    assert.match(String((report.warnings as string[])[0]), /has the name of your global extension/);
  }
  const list = await run(['ext', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /Warnings:\n.*sdkguard: project extension .*\/a has the name/);
});

test('trusting the copy keeps the guard unless the review said it replaces it; reload and restart keep to that', async (t) => {
  const { box, projectRoot, marker, guardDir, env, run } = setup(t);
  const pidLog = join(box.project, 'copy.pids');
  const copy = projectCopy(projectRoot, 'copy', {
    pid_log: pidLog,
    subscribe: { intercept: ['tool_call'] },
  });

  const plain = await run(['ext', 'trust', GUARD, '--yes']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(plain.stdout.includes(`clash:  your global extension ${GUARD} (${guardDir})`));
  assert.match(plain.stderr, /still does not run here/);

  const client = ZotRpc.start([...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env,
  });
  const call = async (id: string): Promise<Line> => {
    const from = client.lines.length;
    llm.script(touch(marker, id), { text: 'done' });
    await client.request('prompt', { message: 'go' });
    const result = await client.waitFor(
      (line) => line.type === 'tool_result' && line.id === id,
      undefined,
      from,
    );
    await client.waitFor((line) => line.type === 'done', undefined, from);
    return result;
  };
  const reload = async () => {
    const reply = await client.request('reload_extensions');
    assert.equal(reply.success, true);
    return (reply.data as { extensions: Array<{ scope: string; status: string }> }).extensions;
  };
  assert.equal((await call('t1')).is_error, true, 'trusted without --replace: the guard is kept');
  assert.equal(existsSync(marker), false);

  const replacing = await run(['ext', 'trust', GUARD, '--replace', '--yes']);
  assert.equal(replacing.code, 0, replacing.stderr);
  assert.ok(replacing.stdout.includes(`replaces: your global extension ${GUARD} (${guardDir})`));
  assert.ok(replacing.stdout.includes(`project extension ${GUARD} (${copy})`), 'names both paths');
  assert.deepEqual(
    (await reload()).map((r) => `${r.scope}:${r.status}`),
    ['project:ready', 'global:shadowed'],
  );
  assert.equal((await call('t2')).is_error, false, 'the reviewed replacement runs in its place');
  assert.equal(existsSync(marker), true);
  rmSync(marker);

  // Changed after the review: a reload gives the name back to the guard.
  appendFileSync(join(copy, 'ext-fixture.mjs'), '\n// changed\n');
  assert.deepEqual(
    (await reload()).map((r) => `${r.scope}:${r.status}`),
    ['project:shadowed', 'global:ready'],
  );
  assert.equal((await call('t3')).is_error, true);
  assert.equal(existsSync(marker), false);

  // Trusted again, running; then changed and killed: the restart brings the guard back.
  assert.equal((await run(['ext', 'trust', GUARD, '--replace', '--yes'])).code, 0);
  await reload();
  const pids = readFileSync(pidLog, 'utf8').trim().split('\n').map(Number);
  appendFileSync(join(copy, 'ext-fixture.mjs'), '// changed again\n');
  const from = client.lines.length;
  process.kill(pids.at(-1)!, 'SIGKILL');
  await client.waitFor(
    (line) => line.type === 'ext_restarted' && line.extension === GUARD,
    hangGuard(10_000),
    from,
  );
  assert.equal((await call('t4')).is_error, true, 'the restart started the guard, not the copy');
  assert.equal(existsSync(marker), false);
  assert.equal(
    readFileSync(pidLog, 'utf8').trim().split('\n').length,
    pids.length,
    'copy not respawned',
  );
  await client.close();
  assert.deepEqual(await waitForNoProcesses(box.home), []);
});
