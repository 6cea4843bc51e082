// docs/sdk-python.md, run: the shell steps in order in a scratch directory (with `zot` on PATH
// and the SDK beside them), their output checked where the page shows it (a ```text block
// after `<!-- output -->`: each line must appear in what the step printed), Python blocks
// after `<!-- file: path -->` written to that path, and every other Python block started as an
// extension in the real host (`zot ext doctor`), which must find it ready.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLES, FAST_TIMEOUTS, expectNoLeftovers } from './support/extensions.js';
import { hangGuard } from './support/timing.js';
import { cleanEnv, makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

const REPO = join(EXAMPLES, '..', '..');
const DOC = join(REPO, 'docs', 'sdk-python.md');

interface Block {
  lang: string;
  code: string;
  marker: string | undefined;
  line: number;
}

/** Fenced blocks with the HTML comment (if any) on the line before the fence. */
function blocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const before = lines[start - 1]?.trim() ?? '';
    const comment = /^<!--\s*(.*?)\s*-->$/.exec(before);
    found.push({
      lang: open[1]!,
      code: body.join('\n') + '\n',
      marker: comment?.[1],
      line: start + 1,
    });
  }
  return found;
}

test('docs/sdk-python.md: every snippet runs', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const work = box.project;
  const bin = join(box.home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'zot'), `#!/bin/sh\nexec "${process.execPath}" "${ZOT_BIN}" "$@"\n`);
  chmodSync(join(bin, 'zot'), 0o755);
  cpSync(join(REPO, 'sdk-python'), join(work, 'sdk-python'), {
    recursive: true,
    filter: (source) => !/__pycache__|[/\\]tests$|[/\\]tools$/.test(source),
  });
  const site = join(box.home, 'site-packages');
  const env = cleanEnv(box.home, {
    ...FAST_TIMEOUTS,
    PATH: `${bin}:${process.env.PATH}`,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONPATH: undefined,
    // `pip install` in the page goes to a private target, never to this machine's Python.
    PIP_TARGET: site,
    PIP_NO_INDEX: '1',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  });
  const all = blocks(readFileSync(DOC, 'utf8'));
  const standalone: Block[] = [];
  let ran = 0;
  for (const [index, block] of all.entries()) {
    if (block.lang === 'sh') {
      const result = spawnSync('bash', ['-e', '-c', block.code], {
        cwd: work,
        env,
        encoding: 'utf8',
        timeout: hangGuard(60_000),
      });
      const printed = `${result.stdout}${result.stderr}`;
      assert.equal(result.status, 0, `line ${block.line}: ${block.code}\n${printed}`);
      const next = all[index + 1];
      if (next?.marker === 'output') {
        const have = printed.split('\n').map((line) => line.trim());
        for (const want of next.code.split('\n').filter((line) => line.trim() !== '')) {
          assert.ok(
            have.some((line) => line.includes(want.trim())),
            `line ${next.line}: "${want}" not in the output of\n${block.code}\n${printed}`,
          );
        }
      }
      ran++;
    } else if (block.lang === 'python') {
      const file = /^file:\s*(\S+)$/.exec(block.marker ?? '')?.[1];
      if (file) writeFileSync(join(work, file), block.code);
      else standalone.push(block);
    } else {
      assert.ok(
        block.lang === 'text' && block.marker === 'output',
        `line ${block.line}: a \`\`\`${block.lang} block the test does not know how to run`,
      );
    }
  }
  assert.ok(ran >= 5, 'the tutorial steps ran');
  assert.ok(standalone.length >= 8, 'the API examples were found');

  // pip installed the SDK into the private target.
  const installed = spawnSync('python3', ['-c', 'import zot_sdk; print(zot_sdk.__file__)'], {
    env: { ...env, PYTHONPATH: site },
    encoding: 'utf8',
  });
  assert.equal(installed.stdout.trim(), join(site, 'zot_sdk', '__init__.py'), installed.stderr);

  // Each API example is an extension: start them all in the real host.
  const dirs: string[] = [];
  const names: string[] = [];
  for (const block of standalone) {
    const name = /Extension\("([^"]+)"/.exec(block.code)?.[1];
    assert.ok(name, `line ${block.line}: no Extension("name") in the example`);
    assert.ok(!names.includes(name), `line ${block.line}: the name ${name} is used twice`);
    names.push(name);
    const dir = join(work, 'snippets', name);
    mkdirSync(dir, { recursive: true });
    cpSync(join(REPO, 'sdk-python', 'zot_sdk'), join(dir, 'zot_sdk'), {
      recursive: true,
      filter: (source) => !source.includes('__pycache__'),
    });
    writeFileSync(join(dir, 'main.py'), block.code);
    writeFileSync(
      join(dir, 'extension.json'),
      JSON.stringify({ name, version: '1.0.0', exec: 'python3', args: ['main.py'] }),
    );
    dirs.push(dir);
  }
  const doctor = await runZot(['ext', 'doctor', '--json', ...dirs.flatMap((d) => ['--ext', d])], {
    home: box.home,
    cwd: work,
    env: { ...FAST_TIMEOUTS, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: undefined },
  });
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  const reports = JSON.parse(doctor.stdout).extensions as Array<{
    name: string;
    status: string;
    warnings: string[];
  }>;
  assert.deepEqual(
    // The tutorial installed `notes` into this ZOT_HOME; doctor reports it too.
    reports.filter((r) => names.includes(r.name)).map((r) => [r.name, r.status, r.warnings]),
    names.map((name) => [name, 'ready', []]),
  );
});
