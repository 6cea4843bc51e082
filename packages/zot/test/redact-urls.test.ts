// A password or token in a URL never reaches an event, the terminal or a log: a malformed proxy
// setting, base URLs from the flag, the environment and models.json, a server's error text, a
// git URL given to `zot ext install`, and MCP server URLs in the bridge.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { MCP_EXT, mcpEnv, writeMcpConfig } from './support/mcp.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot, type ZotResult } from './support/zot.js';

const PASSWORD = 'S3CRETPW';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function sandbox(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  return box;
}

/** Everything zot said and logged, in one string. */
function everything(result: ZotResult, home: string): string {
  const logs = join(home, 'logs');
  const logged = existsSync(logs)
    ? readdirSync(logs).map((name) => readFileSync(join(logs, name), 'utf8'))
    : [];
  return [result.stdout, result.stderr, ...logged].join('\n');
}

test('a malformed proxy URL: the error event, turn_end and stderr name the setting, not the password', async (t) => {
  const box = sandbox(t);
  const proxy = { http_proxy: `http://alice:${PASSWORD}@[bad` };
  const json = await runZot([...fakeLlmFlags(llm.url), '--json', 'hi'], {
    home: box.home,
    cwd: box.project,
    env: proxy,
  });
  assert.equal(json.code, 1, json.stderr);
  const events = jsonLines(json.stdout);
  const error = events.find((event) => event.type === 'error');
  assert.ok(error, json.stdout);
  assert.match(
    String(error.message),
    /the proxy setting http_proxy="http:\/\/\*\*\*@\[bad" is not a URL/,
  );
  assert.ok(events.some((event) => event.type === 'turn_end'));
  assert.ok(!everything(json, box.home).includes(PASSWORD), json.stdout + json.stderr);
  const print = await runZot([...fakeLlmFlags(llm.url), '-p', 'hi'], {
    home: box.home,
    cwd: box.project,
    env: proxy,
  });
  assert.equal(print.code, 1);
  assert.match(print.stderr, /http_proxy="http:\/\/\*\*\*@\[bad"/);
  assert.ok(!everything(print, box.home).includes(PASSWORD), print.stderr);
});

test('base URLs from the flag, the environment and models.json are quoted without credentials', async (t) => {
  const box = sandbox(t);
  const bad = `ftp://alice:${PASSWORD}@gateway.example/v1`;
  const flag = await runZot(['-p', 'hi', '--base-url', bad, '--api-key', 'k'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--base-url expects .*got "ftp:\/\/\*\*\*@gateway\.example\/v1"/);
  const fromEnv = await runZot(['-p', 'hi', '--api-key', 'k'], {
    home: box.home,
    cwd: box.project,
    env: { ANTHROPIC_BASE_URL: bad },
  });
  assert.equal(fromEnv.code, 2);
  assert.match(fromEnv.stderr, /ANTHROPIC_BASE_URL expects .*got "ftp:\/\/\*\*\*@gateway/);
  writeFileSync(
    join(box.home, 'models.json'),
    JSON.stringify([
      {
        provider: 'anthropic',
        id: 'mine',
        baseUrl: `https://${PASSWORD}@gw.example/v1?key=${PASSWORD}`,
      },
    ]),
  );
  const models = await runZot(['-p', 'hi', '--api-key', 'k'], { home: box.home, cwd: box.project });
  assert.equal(models.code, 1);
  assert.match(models.stderr, /models\.json.*"baseUrl" must be an http/);
  for (const result of [flag, fromEnv, models]) {
    assert.ok(!everything(result, box.home).includes(PASSWORD), result.stderr);
  }
});

test("a server's error text that quotes a URL with a key is redacted in the error event", async (t) => {
  const box = sandbox(t);
  llm.script({
    status: 404,
    errorMessage: `no route for https://gw.example/v1/messages?key=${PASSWORD}&beta=1`,
  });
  const result = await runZot([...fakeLlmFlags(llm.url), '--json', 'hi'], {
    home: box.home,
    cwd: box.project,
  });
  const error = jsonLines(result.stdout).find((event) => event.type === 'error');
  assert.match(String(error?.message), /messages\?key=\*\*\*&beta=1/);
  assert.ok(!everything(result, box.home).includes(PASSWORD), result.stdout);
});

test("zot ext install: a git URL with credentials is redacted in its messages and git's", async (t) => {
  const box = sandbox(t);
  const result = await runZot(
    ['ext', 'install', `https://alice:${PASSWORD}@127.0.0.1:1/ext.git?token=${PASSWORD}`],
    { home: box.home, cwd: box.project, env: { GIT_TERMINAL_PROMPT: '0' } },
  );
  assert.equal(result.code, 1, result.stdout);
  assert.match(
    result.stderr,
    /git clone of https:\/\/\*\*\*@127\.0\.0\.1:1\/ext\.git\?token=\*\*\*/,
  );
  assert.ok(!everything(result, box.home).includes(PASSWORD), result.stderr);
});

test('MCP server URLs: the bridge names a bad or unreachable server without its credentials', async (t) => {
  const box = sandbox(t);
  writeMcpConfig(join(box.home, 'mcp.json'), {
    malformed: { url: `http://alice:${PASSWORD}@[bad` },
    down: { url: `http://alice:${PASSWORD}@127.0.0.1:1/mcp?token=${PASSWORD}` },
  });
  const result = await runZot(['-p', '/mcp', '--ext', MCP_EXT, ...fakeLlmFlags(llm.url)], {
    home: box.home,
    cwd: box.project,
    env: mcpEnv(),
    timeoutMs: hangGuard(60_000),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /down \(user, http:\/\/\*\*\*@127\.0\.0\.1:1\/mcp\?token=\*\*\*\)/);
  assert.match(everything(result, box.home), /http:\/\/\*\*\*@\[bad/);
  assert.ok(!everything(result, box.home).includes(PASSWORD), everything(result, box.home));
});
