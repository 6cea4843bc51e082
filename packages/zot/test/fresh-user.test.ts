// A fresh user follows the README's set-up and tour, docs/mcp.md and the Python tutorial
// literally: each page in one shell, in order, from a new home directory, against the scripted
// model and (for MCP) a real MCP server from npm that `npx` finds in the checkout, offline.
// Every command must succeed, every documented output must match, and nothing may say "error"
// or "unknown tool".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { newReader, runDoc, transcript, type BlockRun } from './support/doc-runner.js';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';

/** The scripted model, one per page: replies a page leaves unused never reach the next. */
async function model(t: TestContext): Promise<FakeLlm> {
  const llm = await startFakeLlm();
  t.after(() => llm.close());
  return llm;
}

/** A reader's model settings after the README's `export ANTHROPIC_API_KEY=...`. */
const modelEnv = (llm: FakeLlm) => ({
  ANTHROPIC_API_KEY: 'sk-reader',
  ANTHROPIC_BASE_URL: llm.url,
});

/** Lines that tell a reader something went wrong, in any block's output (notes are fine). */
function complaints(runs: BlockRun[]): string[] {
  return runs.flatMap((run) =>
    run.output
      .split('\n')
      .filter((line) =>
        /\b(error|Error|ERROR)\b|unknown tool|Traceback|not found|FAILED/.test(line),
      )
      .map((line) => `line ${run.block.line}: ${line}`),
  );
}

/** The tool results the model was sent, as text, from every request after `from`. */
function toolResults(llm: FakeLlm, from: number): string[] {
  return llm.requests
    .slice(from)
    .flatMap((request) =>
      ((request.body?.messages ?? []) as Array<{ content?: unknown }>).flatMap((message) =>
        Array.isArray(message.content)
          ? message.content
              .filter((part: { type?: string }) => part.type === 'tool_result')
              .map((part: unknown) => JSON.stringify(part))
          : [],
      ),
    );
}

// `npx zot` is the built zot (npx itself would read the whole dependency tree for seconds on
// each line), and the local servers the tour names are the scripted model: the line's own URL
// is swapped for it, and a local server named without a URL gets it as --base-url (for that
// run only, like every flag). After each line the saved settings are recorded.
const TOUR_PRELUDE = `
npx() {
  [ "$1" = zot ] || { echo "the tour runs npx $1" >&2; return 127; }
  shift
  local args=() local_server=0 has_url=0 a status=0
  for a in "$@"; do
    case "$a" in
      http://127.0.0.1:8000|http://127.0.0.1:8000/v1) a="$FAKE_LLM"; has_url=1 ;;
      --base-url) has_url=1 ;;
      ollama|lmstudio|vllm|llamacpp) local_server=1 ;;
    esac
    args+=("$a")
  done
  if [ "$local_server" = 1 ] && [ "$has_url" = 0 ]; then args+=(--base-url "$FAKE_LLM"); fi
  zot "\${args[@]}" || status=$?
  echo "$(tr -d '\\n' < ~/.local/state/zot/config.json)" >> "$TOUR_LOG"
  return $status
}
`;

test('the README: set-up, tour and extension commands, line by line; the saved model never moves', async (t) => {
  const llm = await model(t);
  const reader = newReader({ ...modelEnv(llm), FAKE_LLM: llm.url });
  t.after(() => reader.cleanup());
  const tourLog = join(reader.base, 'tour.log');
  reader.env['TOUR_LOG'] = tourLog;
  for (let i = 0; i < 40; i++) llm.script({ text: `answer ${i}` });
  llm.serveModels(['served-model']);
  // This reader once chose a model with /model: a plain run uses it from then on.
  const chose = spawnSync('zot', ['-p', '/model claude-haiku-4-5'], {
    cwd: reader.checkout,
    env: reader.env,
    encoding: 'utf8',
  });
  assert.equal(chose.status, 0, chose.stderr);
  const configFile = join(reader.home, '.local', 'state', 'zot', 'config.json');
  const saved = readFileSync(configFile, 'utf8').replace(/\n/g, '');

  const from = llm.requests.length;
  const runs = await runDoc({
    doc: 'README.md',
    reader,
    cwd: reader.checkout,
    prelude: TOUR_PRELUDE,
  });
  assert.deepEqual(complaints(runs), [], transcript(runs));
  const tour = runs.find((run) => run.block.code.includes('npx zot -p'))!;
  const lines = tour.block.code
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const configs = readFileSync(tourLog, 'utf8').trim().split('\n');
  assert.equal(configs.length, lines.filter((line) => line.includes('npx zot')).length);
  for (const [n, config] of configs.entries())
    assert.equal(config, saved, `after npx line ${n + 1}`);

  // Each line naming a local server or a base URL spoke Chat Completions (never /v1/responses)
  // to that server, with the line's model or the one the server serves.
  const sent = llm.requests.slice(from).filter((request) => request.method === 'POST');
  const ownServer = lines.filter((line) =>
    /--provider (ollama|lmstudio|vllm|llamacpp)|--base-url/.test(line),
  );
  assert.ok(ownServer.length >= 3, 'the tour shows local servers');
  const chat = sent.filter((request) => request.format === 'openai-chat');
  assert.equal(chat.length, ownServer.length, ownServer.join('\n'));
  for (const [n, line] of ownServer.entries()) {
    const named = /--model (\S+)/.exec(line)?.[1] ?? 'served-model';
    assert.equal(chat[n]!.body.model, named, line);
  }
  assert.equal(sent.filter((r) => r.format === 'openai-responses').length, 0);
  // The rest went to the model /model saved.
  for (const request of sent.filter((r) => r.format === 'anthropic')) {
    assert.equal(request.body.model, 'claude-haiku-4-5');
  }
});

test('docs/mcp.md: the set-up, with a real MCP server that npx finds offline; its tools are there', async (t) => {
  const llm = await model(t);
  const reader = newReader({
    ...modelEnv(llm),
    // npx finds the server in the checkout's node_modules; it must never ask a registry.
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
  });
  t.after(() => reader.cleanup());
  llm.script(
    { toolCalls: [{ name: 'mcp__fs__list_allowed_directories', args: {} }] },
    { text: 'I may read /tmp.' },
  );
  const from = llm.requests.length;
  const runs = await runDoc({ doc: 'docs/mcp.md', reader, cwd: reader.checkout });
  assert.deepEqual(complaints(runs), [], transcript(runs));
  assert.equal(llm.pending(), 0, `the documented prompt reached the model\n${transcript(runs)}`);
  const offered = (llm.requests[from]!.body.tools as Array<{ name: string }>).map((t) => t.name);
  assert.ok(
    offered.includes('mcp__fs__list_allowed_directories'),
    `offered: ${offered.join(', ')}\n${transcript(runs)}`,
  );
  const results = toolResults(llm, from);
  assert.equal(results.length, 1);
  assert.doesNotMatch(results[0]!, /unknown tool|is_error":true/);
  assert.match(results[0]!, /\/tmp/);
});

test('docs/sdk-python.md: the tutorial and the pip install, in one shell', async (t) => {
  const reader = newReader({
    // pip installs into a private target, from the checkout, never from an index.
    PIP_TARGET: 'PLACEHOLDER',
    PIP_NO_INDEX: '1',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  });
  t.after(() => reader.cleanup());
  const site = join(reader.base, 'site-packages');
  reader.env['PIP_TARGET'] = site;
  const runs = await runDoc({ doc: 'docs/sdk-python.md', reader, cwd: reader.src });
  assert.deepEqual(complaints(runs), [], transcript(runs));
  const state = join(reader.home, '.local', 'state', 'zot');
  assert.ok(existsSync(join(state, 'extensions', 'notes', 'main.py')), 'notes is installed');
  const installed = spawnSync('python3', ['-c', 'import zot_sdk; print(zot_sdk.__file__)'], {
    env: { ...reader.env, PYTHONPATH: site },
    encoding: 'utf8',
  });
  assert.equal(installed.stdout.trim(), join(site, 'zot_sdk', '__init__.py'), installed.stderr);
});
