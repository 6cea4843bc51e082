// The MCP bridge across a session and across runs: a project .mcp.json refused until approved
// (pinned to its hash), a server that dies mid-session (reported, restarted on the next call at
// most once a minute), a Streamable HTTP server, and --no-yolo confirmation of MCP tools.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { expectNoLeftovers, pidAlive } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import {
  EVERYTHING,
  everything,
  filesystem,
  freePort,
  HOSTILE,
  MCP_EXT,
  ROOT,
  mcpEnv,
  writeMcpConfig,
} from './support/mcp.js';
import { ZotRpc, type Line } from './support/rpc-client.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup(env: Record<string, string> = {}) {
  const box = makeSandbox();
  const run = (args: string[]) =>
    runZot([...args, '--ext', MCP_EXT, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: mcpEnv(env),
      timeoutMs: hangGuard(60_000),
    });
  const rpc = (args: string[] = []) =>
    ZotRpc.start([...args, '--ext', MCP_EXT, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: mcpEnv(),
    });
  return { box, run, rpc };
}

/** What a project server run from this repository's node_modules needs in its sandbox. */
const NODE_MODULES = { fs: { read: [join(ROOT, 'node_modules')] } };

const echo = (id: string, message: string) => ({
  toolCalls: [{ id, name: 'mcp__proj__echo', args: { message } }],
});

test('a project .mcp.json is refused until approved with /mcp trust; a change refuses it again', async (t) => {
  const { box, run } = setup({ ZOT_TEST_SECRET: 'hunter2' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const file = join(box.project, '.mcp.json');
  // A project's server runs in a sandbox: this one from the repository's node_modules.
  writeMcpConfig(file, {
    proj: { ...everything(), env: { TOKEN: '${ZOT_TEST_SECRET}' }, permissions: NODE_MODULES },
  });

  llm.script({ text: 'no tools' });
  const refused = await run(['--json', 'hi']);
  assert.equal(refused.code, 0, refused.stderr);
  const offered = (llm.requests.at(-1)!.body.tools as Array<{ name: string }>).map((t) => t.name);
  assert.equal(
    offered.some((name) => name.startsWith('mcp__proj__')),
    false,
  );
  const notes = jsonLines(refused.stdout).filter((e) => e.type === 'ext_notify');
  assert.ok(
    notes.some(
      (n) =>
        n.level === 'warn' &&
        /approve the file: review it with \/mcp trust/.test(String(n.message)),
    ),
    JSON.stringify(notes),
  );
  const status = await run(['-p', '/mcp']);
  assert.match(
    status.stdout,
    /^proj \(project, stdio\): refused: the project \.mcp\.json is not approved/m,
  );

  const review = await run(['-p', '/mcp trust']);
  assert.equal(review.code, 0, review.stderr);
  assert.ok(review.stdout.includes(JSON.stringify([process.execPath, EVERYTHING, 'stdio'])));
  assert.match(review.stdout, /^ {4}env: TOKEN="\$\{ZOT_TEST_SECRET\}"$/m, 'as written');
  assert.equal(review.stdout.includes('hunter2'), false, 'no secret in the review');
  const hash = /\/mcp trust ([0-9a-f]{16})/.exec(review.stdout)![1]!;
  const wrong = await run(['-p', '/mcp trust 0000000000000000']);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /has changed or the hash is wrong/);
  const approved = await run(['-p', `/mcp trust ${hash}`]);
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /^Approved .*\.mcp\.json/);
  const store = JSON.parse(readFileSync(join(box.home, 'mcp-trust.json'), 'utf8'));
  assert.ok(store.projects[file].sha256.startsWith(hash));

  llm.script(echo('p1', 'trusted'), { text: 'ok' });
  const trusted = await run(['--json', 'echo']);
  assert.equal(trusted.code, 0, trusted.stderr);
  const result = jsonLines(trusted.stdout).find((e) => e.type === 'tool_result');
  assert.deepEqual(result?.content, [{ type: 'text', text: 'Echo: trusted' }]);

  // One byte more: a different file, refused again.
  writeFileSync(file, readFileSync(file, 'utf8') + '\n');
  const changed = await run(['-p', '/mcp']);
  assert.match(changed.stdout, /^proj \(project, stdio\): refused/m);
});

test('a server that dies mid-session is reported with its stderr and restarted on the next call, once a minute', async (t) => {
  const { box, rpc } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), { proj: everything() });
  const client = rpc();
  t.after(() => client.close());
  await client.request('ping');

  const command = async (text: string): Promise<Line> => {
    const from = client.lines.length;
    await client.request('command', { text });
    return client.waitFor(
      (l) => l.type === 'ext_display' || l.type === 'ext_error',
      hangGuard(20_000),
      from,
    );
  };
  const pidOf = async () => Number(/pid (\d+)/.exec(String((await command('/mcp')).text))![1]);
  const call = async (id: string): Promise<Line> => {
    const from = client.lines.length;
    llm.script(echo(id, id), { text: 'ok' });
    await client.request('prompt', { message: id });
    await client.waitFor((l) => l.type === 'done', hangGuard(30_000), from);
    return client.lines.slice(from).find((l) => l.type === 'tool_result' && l.id === id)!;
  };

  assert.equal((await call('c1')).is_error, false);
  const first = await pidOf();
  process.kill(first, 'SIGKILL');
  const note = await client.waitFor(
    (l) => l.type === 'ext_notify' && /MCP server "proj" exited/.test(String(l.message)),
    hangGuard(10_000),
  );
  assert.match(String(note.message), /killed by SIGKILL/);
  assert.match(String(note.message), /Its stderr ended with:\n[^]*server/i);

  const restarted = await call('c2');
  assert.deepEqual(restarted.content, [{ type: 'text', text: 'Echo: c2' }]);
  const second = await pidOf();
  assert.notEqual(second, first);

  process.kill(second, 'SIGKILL');
  await client.waitFor(
    (l) => l.type === 'ext_notify' && /"proj" exited/.test(String(l.message)) && l !== note,
    hangGuard(10_000),
  );
  const down = await call('c3');
  assert.equal(down.is_error, true);
  assert.match(
    JSON.stringify(down.content),
    /is down[^]*at most once a minute[^]*\/mcp restart proj/,
  );

  const manual = await command('/mcp restart proj');
  assert.match(String(manual.text), /^proj: restarted, \d+ tool\(s\)$/);
  assert.equal((await call('c4')).is_error, false);
  const last = await pidOf();
  await client.close();
  assert.equal(pidAlive(last), false, 'no MCP server outlives zot');
});

test('a Streamable HTTP server, and --no-yolo asks before an MCP tool runs', async (t) => {
  const { box, rpc } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const port = await freePort();
  const http = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => http.kill('SIGKILL'));
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listen line: ${log}`)), hangGuard(10_000));
    http.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('listening on port')) resolve(void clearTimeout(timer));
    });
  });
  const files = join(box.project, 'files');
  mkdirSync(files);
  writeMcpConfig(join(box.home, 'mcp.json'), {
    web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    fs: filesystem(files),
  });
  const client = rpc(['--no-yolo']);
  t.after(() => client.close());
  await client.request('ping');
  const target = join(files, 'asked.txt');
  llm.script(
    {
      toolCalls: [
        { id: 'h', name: 'mcp__web__get-sum', args: { a: 2, b: 40 } },
        { id: 'd', name: 'mcp__fs__write_file', args: { path: target, content: 'denied' } },
      ],
    },
    { text: 'ok' },
  );
  await client.request('prompt', { message: 'go' });
  const ask = await client.waitFor((l) => l.type === 'confirm_request', hangGuard(20_000));
  assert.equal(ask.tool_name, 'mcp__web__get-sum');
  await client.request('confirm', { tool_id: 'h', decision: 'allow' });
  const second = await client.waitFor((l) => l.type === 'confirm_request' && l.tool_id === 'd');
  assert.equal(second.tool_name, 'mcp__fs__write_file');
  await client.request('confirm', { tool_id: 'd', decision: 'deny' });
  await client.waitFor((l) => l.type === 'done', hangGuard(20_000));
  const sum = client.lines.find((l) => l.type === 'tool_result' && l.id === 'h');
  assert.match(JSON.stringify(sum?.content), /The sum of 2 and 40 is 42/);
  assert.equal(existsSync(target), false, 'a denied MCP call never reaches the server');
});

test('a hostile server: unusable tools skipped and named, a flood bounded, a crash mid-call reported', async (t) => {
  const { box, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), {
    hostile: { command: process.execPath, args: [HOSTILE, box.home] },
  });
  llm.script(
    {
      toolCalls: [
        { id: 'ok', name: 'mcp__hostile__ok', args: {} },
        { id: 'flood', name: 'mcp__hostile__flood', args: {} },
        { id: 'grow', name: 'mcp__hostile__grow', args: {} },
      ],
    },
    { toolCalls: [{ id: 'grown', name: 'mcp__hostile__grown', args: {} }] },
    { toolCalls: [{ id: 'die', name: 'mcp__hostile__die', args: {} }] },
    { text: 'done' },
  );
  const result = await run(['--json', 'go']);
  assert.equal(result.code, 0, result.stderr);
  const offered = (n: number) =>
    (llm.requests.at(n)!.body.tools as Array<{ name: string }>)
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('mcp'))
      .sort();
  const first = [
    'mcp__hostile__die',
    'mcp__hostile__flood',
    'mcp__hostile__grow',
    'mcp__hostile__ok',
  ];
  assert.deepEqual(offered(-4), first);
  assert.deepEqual(offered(-3), [...first, 'mcp__hostile__grown'].sort(), 'after list_changed');
  assert.deepEqual(
    offered(-2),
    [...first.filter((name) => name !== 'mcp__hostile__grow'), 'mcp__hostile__grown'].sort(),
    'a tool the server dropped is unregistered',
  );
  const byId = new Map(
    jsonLines(result.stdout)
      .filter((e) => e.type === 'tool_result')
      .map((e) => [e.id, e as Line & { is_error: boolean; content: Array<{ text: string }> }]),
  );
  assert.equal(byId.get('ok')!.content[0]!.text, 'ok');
  assert.equal(byId.get('grown')!.content[0]!.text, 'grown tool answers');
  const flood = JSON.stringify(llm.requests.at(-3)!.body.messages.at(-1));
  assert.ok(flood.length < 200_000, `the model got ${flood.length} characters, not 3 MiB`);
  const died = byId.get('die')!;
  assert.equal(died.is_error, true);
  assert.match(
    died.content[0]!.text,
    /^MCP server "hostile" ended during the call \(the process exited with status 3\)\.[^]*the disk is on fire/,
  );
  const log = readFileSync(join(box.home, 'logs', 'ext-mcp.log'), 'utf8');
  assert.match(log, /tool "n{70}": mcp__hostile__n{70} is longer than 64 characters; skipped/);
  assert.match(log, /tool "deep": its input schema is nested deeper than 24 levels; skipped/);
  assert.match(log, /lookahead/, 'zot refused the pattern it cannot run, in the log');
});

test('the approval pins the project programs the servers run: an edit of tools/srv.mjs asks again', async (t) => {
  const { box, run, rpc } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const program = join(box.project, 'tools', 'srv.mjs');
  mkdirSync(join(program, '..'), { recursive: true });
  // A project-local server program: the real server, started from a file in the project.
  writeFileSync(program, `import ${JSON.stringify(pathToFileURL(EVERYTHING).href)};\n`);
  writeMcpConfig(join(box.project, '.mcp.json'), {
    proj: {
      command: process.execPath,
      args: ['tools/srv.mjs', 'stdio'],
      permissions: NODE_MODULES,
    },
  });

  const review = await run(['-p', '/mcp trust']);
  assert.equal(review.code, 0, review.stderr);
  assert.match(
    review.stdout,
    /They run these project files, pinned with the approval:\n {2}tools\/srv\.mjs: sha256 [0-9a-f]{16}…, \d+ bytes/,
  );
  const hash = /\/mcp trust ([0-9a-f]{16})/.exec(review.stdout)![1]!;
  const approved = await run(['-p', `/mcp trust ${hash}`]);
  assert.equal(approved.code, 0, approved.stderr);
  llm.script(echo('p1', 'approved'), { text: 'ok' });
  const ran = jsonLines((await run(['--json', 'echo'])).stdout).find(
    (e) => e.type === 'tool_result',
  );
  assert.deepEqual(ran?.content, [{ type: 'text', text: 'Echo: approved' }]);

  // The program changes after the approval; .mcp.json does not.
  appendFileSync(program, '// edited after the approval\n');
  const status = await run(['-p', '/mcp']);
  assert.match(status.stdout, /^proj \(project, stdio\): refused/m);
  const again = await run(['-p', '/mcp trust']);
  assert.doesNotMatch(again.stdout, new RegExp(`/mcp trust ${hash}`), 'a new review, a new hash');
  const stale = await run(['-p', `/mcp trust ${hash}`]);
  assert.notEqual(stale.code, 0);
  assert.match(stale.stderr, /or a program it runs has changed/);

  // Approved again; then edited while its server runs, and the server dies: not restarted.
  const fresh = /\/mcp trust ([0-9a-f]{16})/.exec(again.stdout)![1]!;
  assert.equal((await run(['-p', `/mcp trust ${fresh}`])).code, 0);
  const client = rpc();
  await client.request('ping');
  const call = async (id: string): Promise<Line> => {
    const from = client.lines.length;
    llm.script(echo(id, id), { text: 'ok' });
    await client.request('prompt', { message: id });
    await client.waitFor((l) => l.type === 'done', hangGuard(30_000), from);
    return client.lines.slice(from).find((l) => l.type === 'tool_result' && l.id === id)!;
  };
  assert.equal((await call('c1')).is_error, false);
  const from = client.lines.length;
  await client.request('command', { text: '/mcp' });
  const shown = await client.waitFor((l) => l.type === 'ext_display', hangGuard(20_000), from);
  const pid = Number(/pid (\d+)/.exec(String(shown.text))![1]);
  appendFileSync(program, '// edited while it ran\n');
  process.kill(pid, 'SIGKILL');
  await client.waitFor(
    (l) => l.type === 'ext_notify' && /MCP server "proj" exited/.test(String(l.message)),
    hangGuard(10_000),
    from,
  );
  const refused = await call('c2');
  assert.equal(refused.is_error, true);
  assert.match(JSON.stringify(refused.content), /was not restarted: .* a program it runs changed/);
  await client.close();
});
