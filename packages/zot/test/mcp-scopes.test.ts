// Sandboxed MCP servers, end to end: the built zot, the bridge, real bubblewrap, and a real MCP
// server run from the project (test/fixtures/mcp-probe-server.mjs, no dependencies) whose
// tools try a write, a read and a TCP connection. A project's server runs with the project
// read-only and no network unless its entry's "permissions" say more; "unscoped" is refused from
// a project file; the approval of the file covers the permissions; without bubblewrap the server
// does not start and /mcp says why and how to fix it.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { expectNoLeftovers } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { FILESYSTEM, MCP_EXT, mcpEnv, ROOT, writeMcpConfig } from './support/mcp.js';
import { hangGuard } from './support/timing.js';
import { makeSandboxBox } from './support/sandbox.js';
import { jsonLines, runZot } from './support/zot.js';

const PROBE = fileURLToPath(new URL('../../test/fixtures/mcp-probe-server.mjs', import.meta.url));

let llm: FakeLlm;
let tcp: Server;
let port = 0;
let connections = 0;
before(async () => {
  llm = await startFakeLlm();
  tcp = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  port = (tcp.address() as { port: number }).port;
});
after(() => {
  llm.close();
  tcp.close();
});

type Result = { id: string; is_error: boolean; content: Array<{ text?: string }> };

function setup(env: Record<string, string> = {}) {
  // Outside /tmp (a sandbox's /tmp is its own, which would hide a path whatever the scope says).
  const sandbox = makeSandboxBox();
  const box = { home: sandbox.zotHome, project: sandbox.project, cleanup: sandbox.cleanup };
  const outside = sandbox.outside;
  copyFileSync(PROBE, join(box.project, 'probe.mjs'));
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runZot([...args, '--ext', MCP_EXT, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: mcpEnv({ HOME: sandbox.home, ...env, ...extra }),
      timeoutMs: hangGuard(60_000),
    });
  return { box, outside, run, userHome: sandbox.home };
}

const probe = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: ['probe.mjs'],
  ...extra,
});

/** The model calls the probe's tools; the results by id, as text. */
async function attempts(
  run: ReturnType<typeof setup>['run'],
  server: string,
  calls: Record<string, [string, Record<string, unknown>]>,
): Promise<Record<string, string>> {
  llm.script(
    {
      toolCalls: Object.entries(calls).map(([id, [tool, args]]) => ({
        id,
        name: `mcp__${server}__${tool}`,
        args,
      })),
    },
    { text: 'done' },
  );
  const result = await run(['--json', 'try things']);
  assert.equal(result.code, 0, result.stderr);
  const results = jsonLines(result.stdout).filter(
    (e) => e.type === 'tool_result',
  ) as unknown as Result[];
  return Object.fromEntries(results.map((r) => [r.id, r.content.map((b) => b.text).join('')]));
}

test("a project's server by default: the project read-only, nothing outside, no network", async (t) => {
  const { box, outside, run, userHome } = setup({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.project, '.mcp.json'), { probe: probe() });
  writeMcpConfig(join(box.home, 'mcp.json'), {});
  const before = connections;
  const got = await attempts(run, 'probe', {
    out: ['write', { path: join(outside, 'escaped.txt') }],
    in: ['write', { path: join(box.project, 'inside.txt') }],
    read: ['read', { path: join(box.project, 'probe.mjs') }],
    zotHome: ['read', { path: join(box.home, 'mcp.json') }],
    ssh: ['read', { path: join(userHome, '.ssh', 'id_ed25519') }],
    net: ['connect', { port }],
  });
  assert.match(got.out!, /^write failed: (ENOENT|EROFS|EACCES)$/);
  assert.equal(existsSync(join(outside, 'escaped.txt')), false);
  assert.equal(got.in, 'write failed: EROFS', 'the project is read-only');
  assert.equal(existsSync(join(box.project, 'inside.txt')), false);
  assert.match(got.read!, /^read: \/\/ A real MCP server/, 'the project is readable');
  assert.match(got.zotHome!, /^read failed: ENOENT$/, '$ZOT_HOME is not there');
  assert.match(got.ssh!, /^read failed: ENOENT$/, 'nor is the home directory');
  assert.equal(existsSync(join(outside, 'existing.txt')), true);
  assert.doesNotMatch(got.net!, /connected/);
  assert.equal(connections, before, 'nothing reached the server on 127.0.0.1');

  const status = await run(['-p', '/mcp']);
  assert.match(status.stdout, /^probe \(project, stdio, pid \d+\): ready, 3 tool\(s\)$/m);
  assert.match(
    status.stdout,
    /^ {4}sandbox: the project read-only, no network, nothing writable but its own data$/m,
  );
});

test('an entry\'s "permissions" widen the sandbox: a writable directory and the network', async (t) => {
  const { box, outside, run } = setup({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.project, '.mcp.json'), {
    probe: probe({ permissions: { fs: { write: [outside] }, net: true } }),
  });
  const before = connections;
  const got = await attempts(run, 'probe', {
    out: ['write', { path: join(outside, 'allowed.txt'), content: 'granted' }],
    in: ['write', { path: join(box.project, 'inside.txt') }],
    net: ['connect', { port }],
  });
  assert.equal(got.out, 'written');
  assert.equal(readFileSync(join(outside, 'allowed.txt'), 'utf8'), 'granted');
  assert.equal(got.in, 'write failed: EROFS', 'what was not granted stays refused');
  assert.equal(got.net, 'connect: connected');
  assert.equal(connections, before + 1);
});

test('a real npm server (server-filesystem) in the default sandbox cannot write the project', async (t) => {
  const { box, run } = setup({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // It runs from this repository's node_modules, which the entry lets it read.
  writeMcpConfig(join(box.project, '.mcp.json'), {
    fs: {
      command: process.execPath,
      args: [FILESYSTEM, box.project],
      permissions: { fs: { read: [join(ROOT, 'node_modules')] } },
    },
  });
  llm.script(
    {
      toolCalls: [
        {
          id: 'w',
          name: 'mcp__fs__write_file',
          args: { path: join(box.project, 'n.txt'), content: 'x' },
        },
        {
          id: 'r',
          name: 'mcp__fs__read_text_file',
          args: { path: join(box.project, '.mcp.json') },
        },
      ],
    },
    { text: 'done' },
  );
  const result = await run(['--json', 'write']);
  assert.equal(result.code, 0, result.stderr);
  const byId = new Map(
    (jsonLines(result.stdout).filter((e) => e.type === 'tool_result') as unknown as Result[]).map(
      (r) => [r.id, r],
    ),
  );
  assert.equal(byId.get('w')!.is_error, true);
  assert.match(byId.get('w')!.content[0]!.text!, /EROFS|read-only/);
  assert.equal(existsSync(join(box.project, 'n.txt')), false);
  assert.match(byId.get('r')!.content[0]!.text!, /mcpServers/);
});

test('"unscoped" is refused from a project file; your own servers run unscoped, and say so', async (t) => {
  const { box, outside, run } = setup({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.project, '.mcp.json'), { probe: probe({ permissions: 'unscoped' }) });
  writeMcpConfig(join(box.home, 'mcp.json'), {
    mine: { command: process.execPath, args: [join(box.project, 'probe.mjs')] },
  });
  const got = await attempts(run, 'mine', {
    out: ['write', { path: join(outside, 'mine.txt') }],
  });
  assert.equal(got.out, 'written', 'a server of your own mcp.json has your rights');
  const status = await run(['-p', '/mcp']);
  assert.doesNotMatch(status.stdout, /^probe /m, 'the project server is not there at all');
  assert.match(
    status.stdout,
    /\.mcp\.json: server "probe": "permissions": "unscoped" is allowed only in your own mcp\.json/,
  );
  assert.match(status.stdout, /^mine \(user, stdio, pid \d+\): ready/m);
  assert.match(status.stdout, /^ {4}unscoped: runs with your full rights/m);
});

test('the approval of .mcp.json covers the permissions: widening them asks again', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const file = join(box.project, '.mcp.json');
  writeMcpConfig(file, { probe: probe() });
  const review = await run(['-p', '/mcp trust']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(review.stdout, /^ {4}sandbox: the project read-only, no network/m);
  const hash = /\/mcp trust ([0-9a-f]{16})/.exec(review.stdout)![1]!;
  assert.equal((await run(['-p', `/mcp trust ${hash}`])).code, 0);
  assert.match((await run(['-p', '/mcp'])).stdout, /^probe \(project, stdio, pid \d+\): ready/m);

  writeMcpConfig(file, { probe: probe({ permissions: { net: true } }) });
  assert.match((await run(['-p', '/mcp'])).stdout, /^probe \(project, stdio\): refused/m);
  const again = await run(['-p', '/mcp trust']);
  assert.match(again.stdout, /^ {4}sandbox: .*, and \{"net":true\}$/m, 'the review shows them');
  assert.doesNotMatch(again.stdout, new RegExp(`/mcp trust ${hash}`));
  const stale = await run(['-p', `/mcp trust ${hash}`]);
  assert.notEqual(stale.code, 0);
});

test('without bubblewrap a sandboxed server does not start, and /mcp says why and the fix', async (t) => {
  const { box, run } = setup({ ZOT_TRUST_PROJECT_EXTENSIONS: '1' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  // A PATH with node and nothing else: no bwrap.
  const bin = join(box.project, '..', 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  writeMcpConfig(join(box.project, '.mcp.json'), { probe: probe() });
  const status = await run(['-p', '/mcp'], { PATH: bin });
  assert.equal(status.code, 0, status.stderr);
  assert.match(
    status.stdout,
    /^probe \(project, stdio\): failed: its sandbox could not start, so it was not run/m,
  );
  assert.match(status.stdout, /bubblewrap/);
  assert.match(status.stdout, /zot doctor sandbox/);
});
