// The MCP bridge (examples/extensions/mcp) end to end: the built zot, the fake LLM, and real MCP
// servers from npm (@modelcontextprotocol/server-everything and server-filesystem) started by
// the bridge's bundled MCP SDK client. Direct tools, real file work, images, errors, the
// deferred path through mcp_search, and the installed copy working without node_modules.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { expectNoLeftovers, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { everything, filesystem, MCP_EXT, mcpEnv, ROOT, writeMcpConfig } from './support/mcp.js';
import { hangGuard } from './support/timing.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

type Event = Record<string, unknown> & { type: string };
type Block = { type: string; text?: string; mime_type?: string; data?: string };
type ToolResultEvent = Event & { id: string; is_error: boolean; content: Block[] };

function setup(env: Record<string, string> = {}) {
  const box = makeSandbox();
  const files = join(box.project, 'files');
  mkdirSync(files);
  const run = (args: string[], extra: string[] = ['--ext', MCP_EXT]) =>
    runZot([...args, ...extra, ...fakeLlmFlags(llm.url), '--no-session'], {
      home: box.home,
      cwd: box.project,
      env: mcpEnv(env),
      timeoutMs: hangGuard(60_000),
    });
  return { box, files, run };
}

const results = (stdout: string) =>
  jsonLines(stdout).filter((e) => e.type === 'tool_result') as ToolResultEvent[];
const offered = (n: number) =>
  (llm.requests.at(n)!.body.tools as Array<{ name: string }>).map((tool) => tool.name);

test('direct tools: real file work, an image, an error result; every result attributed to mcp', async (t) => {
  const { box, files, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), { fs: filesystem(files), everything: everything() });
  const note = join(files, 'note.txt');
  llm.script(
    {
      toolCalls: [
        { id: 'w', name: 'mcp__fs__write_file', args: { path: note, content: 'from the model' } },
        { id: 'img', name: 'mcp__everything__get-tiny-image', args: {} },
        { id: 'bad', name: 'mcp__fs__read_text_file', args: { path: '/etc/hostname' } },
      ],
    },
    { toolCalls: [{ id: 'r', name: 'mcp__fs__read_text_file', args: { path: note } }] },
    { text: 'done' },
  );
  const result = await run(['--json', 'write a note']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(note, 'utf8'), 'from the model');

  const tools = offered(-3);
  for (const name of ['mcp__fs__write_file', 'mcp__fs__read_text_file', 'mcp__everything__echo']) {
    assert.ok(tools.includes(name), `${name} offered directly`);
  }
  assert.equal(tools.includes('mcp_search'), false, 'no deferred server, no mcp_search');
  const schema = (
    llm.requests.at(-3)!.body.tools as Array<{ name: string; input_schema: any }>
  ).find((tool) => tool.name === 'mcp__fs__write_file')!.input_schema;
  assert.deepEqual(schema.required, ['path', 'content'], 'the server’s input schema');

  const byId = new Map(results(result.stdout).map((r) => [r.id, r]));
  assert.deepEqual(
    [...byId.values()].map((r) => r.extension),
    ['mcp', 'mcp', 'mcp', 'mcp'],
  );
  assert.equal(byId.get('w')!.is_error, false);
  const image = byId.get('img')!.content.find((b) => b.type === 'image')!;
  assert.equal(image.mime_type, 'image/png');
  assert.equal(Buffer.from(image.data!, 'base64').subarray(1, 4).toString(), 'PNG');
  assert.equal(byId.get('bad')!.is_error, true, 'isError from the server is kept');
  assert.match(byId.get('bad')!.content[0]!.text!, /Access denied - path outside allowed/);
  assert.equal(byId.get('r')!.content[0]!.text, 'from the model');
  // The image reached the model as an image.
  const sent = JSON.stringify(llm.requests.at(-2)!.body.messages.at(-1));
  assert.ok(sent.includes(image.data!.slice(0, 40)));
});

test('deferred: past the threshold only mcp_search is offered; it finds and activates a tool', async (t) => {
  const { box, run } = setup({ ZOT_MCP_DEFER_THRESHOLD: '5' });
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), { everything: everything() });
  llm.script(
    { toolCalls: [{ id: 's', name: 'mcp_search', args: { query: 'echo back the input' } }] },
    { toolCalls: [{ id: 'e', name: 'mcp__everything__echo', args: { message: 'deferred hi' } }] },
    { text: 'done' },
  );
  const result = await run(['--json', 'echo something']);
  assert.equal(result.code, 0, result.stderr);
  const mcpTools = (n: number) => offered(n).filter((name) => name.startsWith('mcp'));
  assert.deepEqual(mcpTools(-3), ['mcp_search']);
  assert.ok(mcpTools(-2).includes('mcp__everything__echo'), 'activated by the search');
  assert.ok(mcpTools(-2).length <= 6, 'only what the search activated');
  const [search, echo] = results(result.stdout);
  assert.match(search!.content[0]!.text!, /^Activated \d tool\(s\)[^]*- mcp__everything__echo: /);
  assert.deepEqual(echo!.content, [{ type: 'text', text: 'Echo: deferred hi' }]);

  const status = await run(['-p', '/mcp']);
  assert.match(
    status.stdout,
    /^everything \(user, stdio, pid \d+\): ready, 12 tool\(s\), deferred behind mcp_search$/m,
  );
  // server-everything's one task-only tool is left out, and /mcp says why (no problem, though:
  // nothing is wrong with the configuration).
  assert.match(
    status.stdout,
    /^1 tool\(s\) left out:\n {2}server "everything" tool "simulate-research-query": it runs only as an MCP task, which the bridge does not support$/m,
  );
  assert.doesNotMatch(status.stdout, /problem/);
});

test('interception and the audit trail apply to MCP tools like any extension tool', async (t) => {
  const { box, files, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), { fs: filesystem(files) });
  const blocker = makeExtension(join(box.home, 'blockers'), 'blocker', 'well-behaved', {
    subscribe: { intercept: ['tool_call'] },
    intercept_responses: { tool_call: { block: true, reason: 'no MCP writes' } },
  });
  const target = join(files, 'blocked.txt');
  llm.script(
    { toolCalls: [{ id: 'b', name: 'mcp__fs__write_file', args: { path: target, content: 'x' } }] },
    { text: 'ok' },
  );
  const result = await run(['--json', 'write'], ['--ext', blocker, '--ext', MCP_EXT]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(target), false, 'the server never got the call');
  const [blocked] = results(result.stdout);
  assert.equal(blocked!.is_error, true);
  assert.match(blocked!.content[0]!.text!, /no MCP writes/);
  const audit = jsonLines(result.stdout).filter((e) => e.type === 'intercept');
  assert.deepEqual(
    audit.map((e) => [e.extension, e.event, e.action, e.reason, e.before]),
    [['blocker', 'tool_call', 'block', 'no MCP writes', { path: target, content: 'x' }]],
  );
});

test('the installed copy runs on its own bundle; zot ext test passes with a real server', async (t) => {
  const { box, files, run } = setup();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  writeMcpConfig(join(box.home, 'mcp.json'), { fs: filesystem(files) });
  writeFileSync(join(files, 'hello.txt'), 'hello from disk');
  const install = await runZot(['ext', 'install', MCP_EXT], { home: box.home, cwd: box.project });
  assert.equal(install.code, 0, install.stderr);
  const installed = join(box.home, 'extensions', 'mcp');
  assert.equal(existsSync(join(installed, 'node_modules')), false);
  assert.ok(existsSync(join(installed, 'dist', 'mcp.mjs')));

  llm.script(
    {
      toolCalls: [
        { id: 'i', name: 'mcp__fs__read_text_file', args: { path: join(files, 'hello.txt') } },
      ],
    },
    { text: 'read it' },
  );
  const result = await run(['--json', 'read hello'], []);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(results(result.stdout)[0]!.content[0]!.text, 'hello from disk');

  const kit = await runZot(['ext', 'test', installed, '--json'], {
    home: box.home,
    cwd: box.project,
    env: mcpEnv(),
    timeoutMs: hangGuard(120_000),
  });
  const report = JSON.parse(kit.stdout) as {
    ok: boolean;
    checks: Array<{ check: string; target?: string; status: string; message: string }>;
  };
  const failed = report.checks.filter((c) => c.status === 'fail');
  assert.deepEqual(failed, [], kit.stderr);
  const toolChecks = report.checks.filter((c) => c.check === 'tool');
  assert.ok(
    toolChecks.length >= 10,
    `the filesystem server's tools were exercised: ${toolChecks.length}`,
  );
  assert.equal(report.ok, true);
});

test('the committed bundle is what build.mjs makes from the sources', () => {
  const check = spawnSync(process.execPath, [join(MCP_EXT, 'build.mjs'), '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(check.status, 0, check.stderr);
});

test('the sources type-check under strict settings (examples/extensions/mcp/tsconfig.json)', () => {
  const { config } = ts.readConfigFile(join(MCP_EXT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, MCP_EXT);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  assert.ok(parsed.fileNames.length >= 5, parsed.fileNames.join(', '));
  assert.deepEqual(problems, []);
});
