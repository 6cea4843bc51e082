// The pages a reader follows step by step run as written: each page's shell blocks in order, in
// one shell, from a new home directory, with every documented output compared with the real
// one (support/doc-runner.ts says how a page marks its blocks). The README, docs/mcp.md and
// docs/sdk-python.md run in fresh-user.test.ts; every other shell block in the docs is run here
// or says why it is not.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { compareOutput, docSteps, newReader, REPO, runDoc } from './support/doc-runner.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';

/** The pages that run, and the test file that runs each. */
const RUN_BY: Record<string, string> = {
  'README.md': 'fresh-user.test.ts',
  'docs/mcp.md': 'fresh-user.test.ts',
  'docs/sdk-python.md': 'fresh-user.test.ts',
  'docs/sdk-typescript.md': 'docs-run.test.ts',
  'docs/extensions.md': 'docs-run.test.ts',
  'docs/rpc.md': 'docs-run.test.ts',
};

/** The scripted model for one page, and a reader's settings for it. */
async function model(t: TestContext) {
  const llm: FakeLlm = await startFakeLlm();
  t.after(() => llm.close());
  return { llm, env: { ANTHROPIC_API_KEY: 'sk-reader', ANTHROPIC_BASE_URL: llm.url } };
}

test('every shell block in the README and docs/ runs in a test, or says why not', () => {
  const pages = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`)];
  const unrun: string[] = [];
  for (const page of pages.filter((p) => p.endsWith('.md'))) {
    // docSteps throws on a marker it does not know, a shell block fenced as ```bash and a
    // "not run" without a reason.
    const steps = docSteps(page, readFileSync(join(REPO, page), 'utf8'));
    const runs = steps.filter((step) => step.kind === 'run');
    if (runs.length > 0 && RUN_BY[page] === undefined) {
      unrun.push(...runs.map((step) => `${page}:${step.block.line}`));
    }
  }
  assert.deepEqual(unrun, [], 'run these pages in docs-run.test.ts, or mark the blocks not run');
});

test('the output comparison: paths, times and durations normalised; "..." stands for lines', () => {
  const base = '/tmp/zot-doc-x';
  assert.equal(
    compareOutput(
      'ok /home/kim/src in 52 ms\n...\nSunday 2025-06-01 10:00:00\n',
      'ok /tmp/zot-doc-x/home/kim/src in 3 ms\nmore\nlines\nTuesday 2026-12-01 18:04:02  \n\n',
      base,
    ),
    undefined,
  );
  assert.equal(compareOutput('a\n...\n', 'a\n', base), undefined);
  assert.match(compareOutput('a\nb\n', 'a\nc\n', base) ?? '', /documented[\s\S]*printed/);
  assert.notEqual(compareOutput('a\n', 'a\nb\n', base), undefined, 'no line may be left over');
  assert.throws(
    () => docSteps('x.md', '<!-- not run -->\n```sh\nrm -rf ~\n```\n'),
    /say why the block is not run/,
  );
  assert.throws(() => docSteps('x.md', '```bash\nls\n```\n'), /fence shell code as ```sh/);
  assert.throws(() => docSteps('x.md', '<!-- outptu -->\n```text\nx\n```\n'), /unknown marker/);
});

// `npm install` in the scaffold gets the build tools from this checkout, as npm would from its
// cache: the test must not depend on the registry.
const NPM_CACHE_PRELUDE = `
npm() {
  if [ "$1" = install ] && [ $# = 1 ] && [ -f tsconfig.json ]; then
    mkdir -p node_modules/@types
    cp -R "$ZOT_NODE_MODULES/typescript" node_modules/
    cp -R "$ZOT_NODE_MODULES/@types/node" node_modules/@types/
    cp -R "$ZOT_NODE_MODULES/undici-types" node_modules/
  fi
  command npm "$@"
}
`;

test('docs/sdk-typescript.md: the tutorial and both ways of getting the SDK', async (t) => {
  const reader = newReader({ ZOT_NODE_MODULES: join(REPO, 'node_modules') });
  t.after(() => reader.cleanup());
  await runDoc({
    doc: 'docs/sdk-typescript.md',
    reader,
    cwd: reader.src,
    prelude: NPM_CACHE_PRELUDE,
    idleMsPerBlock: 120_000,
  });
  const installed = join(reader.home, '.local', 'state', 'zot', 'extensions', 'greeter');
  assert.ok(existsSync(join(installed, 'dist', 'index.js')), 'greeter is installed, built');
});

test('docs/extensions.md: playing the host, commands outside the TUI, zot ext test', async (t) => {
  const { llm, env } = await model(t);
  const reader = newReader(env);
  t.after(() => reader.cleanup());
  llm.script({ text: 'It is Tuesday.' });
  const from = llm.requests.length;
  await runDoc({ doc: 'docs/extensions.md', reader, cwd: reader.checkout });
  assert.equal(llm.pending(), 0, '/clock-prompt asked the model');
  assert.match(JSON.stringify(llm.requests[from]!.body.messages), /day of the week/);
});

test('docs/rpc.md: a prompt over RPC', async (t) => {
  const { llm, env } = await model(t);
  const reader = newReader(env);
  t.after(() => reader.cleanup());
  llm.script({ text: 'hi' });
  const runs = await runDoc({ doc: 'docs/rpc.md', reader, cwd: reader.src });
  assert.equal(llm.pending(), 0);
  assert.match(runs[0]!.output, /"type":"assistant_message"/);
});
