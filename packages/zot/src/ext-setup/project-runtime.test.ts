// What a project extension's runtime would load from the repository outside its pin: a program
// found on PATH there, NODE_PATH / PYTHONPATH entries there. Refused, naming the path.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { DiscoveredExtension } from './discovery.js';
import { resolveExec } from './exec-resolve.js';
import { readManifest } from './manifest.js';
import { projectRuntimeProblem } from './project-runtime.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'zot-runtime-')));
after(() => rmSync(base, { recursive: true, force: true }));

function program(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

/** `<base>/repo` (a repository) with zot started in `repo/sub`, and a project extension there. */
function setup() {
  const repo = join(base, 'repo');
  const project = join(repo, 'sub');
  const dir = join(project, '.zot', 'extensions', 'proj');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'extension.json'), JSON.stringify({ name: 'proj', exec: 'python3' }));
  const read = readManifest(dir);
  assert.ok(read.ok);
  const entry = (scope: DiscoveredExtension['scope']): DiscoveredExtension => ({
    scope,
    dir,
    status: 'load',
    manifest: read.manifest,
    warnings: [],
    ...(scope === 'project' ? { projectRoot: project } : {}),
  });
  return { repo, project, dir, entry };
}

test('a program found on PATH inside the repository is refused; one outside is the user’s', () => {
  const { repo, dir, entry } = setup();
  const venv = program(join(repo, '.venv', 'bin', 'python3'));
  const system = program(join(base, 'usr', 'bin', 'python3'));
  const resolved = (path: string) => {
    const exec = resolveExec(entry('project').manifest!, { PATH: path });
    assert.ok(exec.ok);
    return exec.command;
  };
  const problem = projectRuntimeProblem(entry('project'), resolved(join(repo, '.venv', 'bin')), {});
  assert.ok(problem?.includes(`is found on PATH at ${venv}, inside ${repo}`), problem);
  assert.match(problem ?? '', /activated virtual environment .*take that directory off PATH/);
  assert.equal(
    projectRuntimeProblem(entry('project'), resolved(join(base, 'usr', 'bin')), {}),
    undefined,
  );
  assert.equal(resolved(join(base, 'usr', 'bin')), system);
  assert.equal(projectRuntimeProblem(entry('global'), venv, {}), undefined, 'the user’s own');
  assert.equal(projectRuntimeProblem(entry('flag'), venv, {}), undefined);
  // Inside the extension directory is pinned by its hash.
  const own = program(join(dir, 'bin', 'python3'));
  assert.equal(projectRuntimeProblem(entry('project'), own, {}), undefined);
});

test('NODE_PATH and PYTHONPATH entries in the repository (relative ones from the extension) are refused', () => {
  const { repo, dir, entry } = setup();
  const system = program(join(base, 'usr', 'bin', 'python3'));
  const check = (env: NodeJS.ProcessEnv) => projectRuntimeProblem(entry('project'), system, env);
  assert.equal(check({}), undefined);
  assert.equal(
    check({ PYTHONPATH: `${join(base, 'lib')}::lib:.` }),
    undefined,
    'outside, or inside it',
  );
  for (const [name, value, path] of [
    ['PYTHONPATH', join(repo, 'src'), join(repo, 'src')],
    ['NODE_PATH', `/nowhere:${join(repo, 'node_modules')}`, join(repo, 'node_modules')],
    ['PYTHONPATH', '../..', join(dir, '..', '..')],
  ] as const) {
    const problem = check({ [name]: value }) ?? '';
    assert.ok(problem.startsWith(`${name} holds `), problem);
    assert.ok(problem.includes(`${path}, inside ${repo}`), problem);
    assert.match(problem, /proj was not started/);
  }
});
