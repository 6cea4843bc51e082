// A fresh user runs the README's tour line by line, in one shell, against the scripted model:
// every line works, and none of them changes the provider and model a plain `zot` uses next
// (flags are for their run; only /model saves).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { hangGuard } from './support/timing.js';
import { cleanEnv, makeSandbox, runZot, ZOT_BIN } from './support/zot.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The shell lines of the README's "A tour" block. */
function tourLines(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## A tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(tour)?.[1];
  assert.ok(block, 'the README has a tour block');
  return block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

let llm: FakeLlm;
const box = makeSandbox();
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
  box.cleanup();
});

// `npx zot` is the built zot. The tour's local servers are the scripted model: the line's own
// URL is swapped for it, and a local server named without a URL gets it as --base-url, which
// is for that run only, like every flag.
const SHIM = `
npx() {
  [ "$1" = zot ] || { echo "the tour runs npx $1" >&2; return 127; }
  shift
  local args=() local_server=0 has_url=0 a
  for a in "$@"; do
    case "$a" in
      http://127.0.0.1:8000|http://127.0.0.1:8000/v1) a="$FAKE_LLM"; has_url=1 ;;
      --base-url) has_url=1 ;;
      ollama|lmstudio|vllm|llamacpp) local_server=1 ;;
    esac
    args+=("$a")
  done
  if [ "$local_server" = 1 ] && [ "$has_url" = 0 ]; then args+=(--base-url "$FAKE_LLM"); fi
  node "$ZOT_BIN" "\${args[@]}"
}
`;

/** Runs the lines in one bash, in order; per line: exit code, output, config.json after it. */
async function runInOneShell(lines: string[]) {
  const script = [
    SHIM,
    ...lines.map(
      (line, n) =>
        `echo "@@@ start ${n}"; ${line}\necho "@@@ rc ${n} $?"; ` +
        `echo "@@@ config ${n} $(cat "$ZOT_HOME/config.json" 2>/dev/null | tr -d '\\n')"`,
    ),
  ].join('\n');
  const child = spawn('bash', ['-c', script], {
    cwd: ROOT,
    env: cleanEnv(box.home, {
      FAKE_LLM: llm.url,
      ZOT_BIN,
      // Where the tour's Anthropic calls go; the key is the tour's own `export` line.
      ANTHROPIC_BASE_URL: llm.url,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const limit = hangGuard(30_000 * lines.length);
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the tour did not finish in ${limit} ms\n${out}\n${err}`));
    }, limit);
    child.on('close', (status) => (clearTimeout(timer), resolve(status)));
  });
  assert.equal(code, 0, err);
  return lines.map((line, n) => {
    const section = out.slice(out.indexOf(`@@@ start ${n}\n`), out.indexOf(`@@@ rc ${n} `));
    return {
      line,
      rc: Number(/@@@ rc \d+ (\d+)/.exec(out.slice(out.indexOf(`@@@ rc ${n} `)))?.[1]),
      output: section,
      config: /@@@ config \d+ (.*)/.exec(out.slice(out.indexOf(`@@@ config ${n} `)))?.[1] ?? '',
      stderr: err,
    };
  });
}

test("the README's tour, line by line: every line works and the saved default never moves", async () => {
  const lines = tourLines();
  assert.ok(lines.some((line) => line.includes('--provider ollama')));
  assert.ok(lines.some((line) => line.includes('--base-url')));
  for (let i = 0; i < 3 * lines.length; i++) llm.script({ text: `answer ${i}` });
  llm.serveModels(['served-model']);
  // The user chose a model once, with /model: the one a plain run uses from then on.
  const chose = await runZot(['-p', '/model claude-haiku-4-5'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(chose.code, 0, chose.stderr);
  const saved = readFileSync(join(box.home, 'config.json'), 'utf8').replace(/\n/g, '');

  const before = llm.requests.length;
  const results = await runInOneShell(lines);
  for (const result of results) {
    assert.equal(result.rc, 0, `${result.line}\n${result.output}\n${result.stderr}`);
    assert.equal(result.config, saved, `after: ${result.line}`);
  }
  const sent = llm.requests.slice(before);
  // Each line naming a local server or a base URL spoke Chat Completions (never /v1/responses)
  // to that server, with the line's model or the one the server serves.
  const ownServer = lines.filter((line) =>
    /--provider (ollama|lmstudio|vllm|llamacpp)|--base-url/.test(line),
  );
  const chat = sent.filter((request) => request.format === 'openai-chat');
  assert.equal(chat.length, ownServer.length, ownServer.join('\n'));
  for (const [n, line] of ownServer.entries()) {
    const named = /--model (\S+)/.exec(line)?.[1] ?? 'served-model';
    assert.equal(chat[n]!.body.model, named, line);
  }
  assert.equal(sent.filter((r) => r.format === 'openai-responses').length, 0);

  // The next plain run uses what /model saved.
  llm.script({ text: 'plain' });
  const plain = await runZot(['-p', 'hi'], {
    home: box.home,
    cwd: box.project,
    env: { ANTHROPIC_BASE_URL: llm.url, ANTHROPIC_API_KEY: 'k' },
  });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(llm.requests.at(-1)!.format, 'anthropic');
  assert.equal(llm.requests.at(-1)!.body.model, 'claude-haiku-4-5');
});

test('flags are for their run: --provider, --model, --base-url and --reasoning save nothing', async (t) => {
  const own = makeSandbox();
  t.after(() => own.cleanup());
  llm.script({ text: 'one' });
  const flagged = await runZot(
    ['-p', 'hi', '--provider', 'vllm', '--model', 'm', '--base-url', llm.url, '--reasoning', 'low'],
    { home: own.home, cwd: own.project },
  );
  assert.equal(flagged.code, 0, flagged.stderr);
  assert.equal(existsSync(join(own.home, 'config.json')), false, 'nothing was saved');
  // /model saves, in print mode as in the TUI; config.json's other settings stay.
  writeFileSync(join(own.home, 'config.json'), JSON.stringify({ theme: 'paper' }));
  const chose = await runZot(['-p', '/model vllm/served-model'], {
    home: own.home,
    cwd: own.project,
  });
  assert.equal(chose.code, 0, chose.stderr);
  assert.deepEqual(JSON.parse(readFileSync(join(own.home, 'config.json'), 'utf8')), {
    theme: 'paper',
    provider: 'vllm',
    model: 'served-model',
  });
});
