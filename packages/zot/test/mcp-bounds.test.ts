// The MCP bridge's handling of untrusted input, module by module: configuration files, tool
// names and schemas, results, search. The modules are the example's TypeScript sources, bundled
// on the fly with the repository's esbuild (they are not part of zot's own build).
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { MCP_EXT } from './support/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'zot-mcp-bounds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let config: any;
let tools: any;
let results: any;
let search: any;
let trust: any;
let pins: any;
let cache: any;

before(async () => {
  const names = ['config', 'tools', 'results', 'search', 'trust', 'pins', 'cache'];
  await build({
    entryPoints: names.map((name) => join(MCP_EXT, 'src', `${name}.ts`)),
    outdir: dir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  const load = (name: string) => import(pathToFileURL(join(dir, `${name}.mjs`)).href);
  [config, tools, results, search, trust, pins, cache] = await Promise.all(names.map(load));
});

test('configuration: both transports, ${VAR} expansion, bad entries reported and skipped', () => {
  const path = join(dir, 'mcp.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        local: { command: 'node', args: ['${HOME}/s.js', '${NOPE:-dflt}'], env: { K: '${X}' } },
        web: { type: 'http', url: 'https://example.test/mcp', headers: { A: 'Bearer ${TOKEN}' } },
        bare: { url: 'http://127.0.0.1:1/mcp' },
        old: { type: 'sse', url: 'http://x/sse' },
        file: { type: 'http', url: 'file:///etc/passwd' },
        typo: { command: 7 },
        off: { command: 'x', disabled: true },
        long: { command: 'node', args: Array(300).fill('a') },
      },
      deferThreshold: 3,
    }),
  );
  const file = config.readConfigFile(path, 'user', { HOME: '/h', X: 'x!', TOKEN: 't' });
  assert.deepEqual(
    file.servers.map((s: any) => [s.name, s.kind]),
    [
      ['local', 'stdio'],
      ['web', 'http'],
      ['bare', 'http'],
    ],
  );
  assert.deepEqual(file.servers[0].args, ['/h/s.js', 'dflt']);
  assert.deepEqual(file.servers[0].env, { K: 'x!' });
  assert.deepEqual(file.servers[1].headers, { A: 'Bearer t' });
  assert.equal(file.deferThreshold, 3);
  assert.equal(file.problems.length, 4);
  assert.match(file.problems.join('\n'), /"old": the SSE transport is not supported/);
  assert.match(file.problems.join('\n'), /"file": url must be http: or https:/);
  assert.match(file.problems.join('\n'), /"typo": command must be a string/);
  assert.match(file.problems.join('\n'), /"long": args has over 256 entries/);
  assert.match(file.sha256, /^[0-9a-f]{64}$/);

  writeFileSync(path, '{"mcpServers": [');
  assert.match(config.readConfigFile(path, 'user').problems[0], /not JSON/);
  writeFileSync(path, Buffer.alloc(config.LIMITS.fileBytes + 1, 32));
  assert.match(config.readConfigFile(path, 'user').problems[0], /over 1048576 bytes; ignored/);
  assert.deepEqual(config.readConfigFile(join(dir, 'none.json'), 'user').found, false);
});

test('tool names: sanitised to zot’s rule; too long, colliding or task-only tools are skipped with a note', () => {
  const taken = new Set<string>();
  const {
    tools: out,
    skipped,
    leftOut,
  } = tools.bridgeTools(
    'my.server',
    [
      { name: 'read file', inputSchema: { type: 'object' } },
      { name: 'read?file', inputSchema: { type: 'object' } },
      { name: 'x'.repeat(60), inputSchema: { type: 'object' } },
      { name: 'list', inputSchema: { type: 'array' } },
      { name: 'ok', description: 'd'.repeat(5000) },
      { name: 'job', execution: { taskSupport: 'required' } },
      { name: 'maybe-job', execution: { taskSupport: 'optional' } },
    ],
    taken,
    2000,
  );
  assert.deepEqual(
    out.map((t: any) => [t.zotName, t.mcpName]),
    [
      ['mcp__my_server__read_file', 'read file'],
      ['mcp__my_server__ok', 'ok'],
      ['mcp__my_server__maybe-job', 'maybe-job'],
    ],
  );
  assert.equal(out[1].description.length, tools.TOOL_LIMITS.descriptionChars);
  assert.match(skipped[0], /mcp__my_server__read_file is already taken; skipped/);
  assert.match(skipped[1], /is longer than 64 characters; skipped/);
  assert.match(skipped[2], /describes "array", not an object; skipped/);
  assert.equal(skipped.length, 3);
  assert.deepEqual(leftOut, [
    'server "my.server" tool "job": it runs only as an MCP task, which the bridge does not support',
  ]);
  const many = Array.from({ length: 600 }, (_, i) => ({ name: `t${i}` }));
  const capped = tools.bridgeTools('big', many, new Set(), 2000);
  assert.equal(capped.tools.length, 500);
  assert.match(capped.skipped[0], /offers 600 tools; only the first 500 are bridged/);
});

test('schemas: $schema dropped, too large or too deep refused, the server’s object untouched', () => {
  const raw = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
  assert.deepEqual(tools.boundSchema(raw), { type: 'object' });
  assert.equal(raw.$schema, 'https://json-schema.org/draft/2020-12/schema');
  let deep: any = { type: 'object' };
  for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { a: deep } };
  assert.match(tools.boundSchema(deep), /nested deeper than 24 levels/);
  const big = { type: 'object', description: 'x'.repeat(70_000) };
  assert.match(tools.boundSchema(big), /over 65536 characters/);
  assert.deepEqual(tools.boundSchema(undefined), { type: 'object', properties: {} });
});

test('results: every MCP content type maps to text or image; sizes are bounded; isError kept', () => {
  const png = Buffer.from('\x89PNG\r\n\x1a\nxxxx', 'latin1').toString('base64');
  const mapped = results.mapResult({
    isError: true,
    content: [
      { type: 'text', text: 'hello' },
      { type: 'image', mimeType: 'image/png', data: png },
      { type: 'image', mimeType: 'image/tiff', data: 'AAAA' },
      { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'demo://a', mimeType: 'text/plain', text: 'body' } },
      { type: 'resource', resource: { uri: 'demo://b', mimeType: 'image/png', blob: png } },
      { type: 'resource_link', uri: 'demo://c', name: 'c', description: 'see c' },
      { type: 'surprise' },
    ],
  });
  assert.equal(mapped.isError, true);
  assert.deepEqual(
    mapped.content.map((b: any) => (b.type === 'image' ? `image ${b.mime_type}` : b.text)),
    [
      'hello',
      'image image/png',
      '[image (image/tiff), about 3 bytes, not shown]',
      '[audio (audio/wav), about 3 bytes, not shown]',
      '[resource demo://a (text/plain)]\nbody',
      'image image/png',
      '[resource link demo://c "c": see c]',
      '[MCP content of type "surprise", not shown]',
    ],
  );
  const flood = results.mapResult({
    content: Array.from({ length: 300 }, () => ({ type: 'text', text: 'y'.repeat(10_000) })),
  });
  const text = flood.content.map((b: any) => b.text).join('');
  assert.ok(text.length < results.RESULT_LIMITS.textChars + 1000, String(text.length));
  assert.match(flood.content.at(-1).text, /^\[\d+ more content block\(s\) left out\]$/);
  assert.deepEqual(results.mapResult({ content: [], structuredContent: { a: 1 } }).content, [
    { type: 'text', text: '{\n  "a": 1\n}' },
  ]);
  assert.deepEqual(results.mapResult('nonsense'), { content: [], isError: false });
});

test('search: name words outrank description words; an exact name wins; limit bounded', () => {
  const entry = (mcpName: string, description: string) => ({
    zotName: `mcp__s__${mcpName}`,
    mcpName,
    description,
    schema: {},
  });
  const list = [
    entry('get-sum', 'adds two numbers'),
    entry('echo', 'echoes the input back'),
    entry('read_file', 'reads a file; see also echo'),
  ];
  assert.deepEqual(
    search.searchTools('echo', list, 5).map((t: any) => t.mcpName),
    ['echo', 'read_file'],
  );
  assert.deepEqual(
    search.searchTools('mcp__s__get-sum', list, 5).map((t: any) => t.mcpName),
    ['get-sum'],
  );
  assert.deepEqual(search.searchTools('weather', list, 5), []);
  assert.equal(search.searchTools('s', list, 1000).length <= 20, true);
});

test('trust: approval pinned to a hash; a different hash is not approved; withdraw', () => {
  const store = join(dir, 'home', 'mcp-trust.json');
  const file = '/p/.mcp.json';
  assert.equal(trust.isApproved(store, file, 'a'.repeat(64)), false);
  trust.approve(store, file, 'a'.repeat(64));
  assert.equal(trust.isApproved(store, file, 'a'.repeat(64)), true);
  assert.equal(trust.isApproved(store, file, 'b'.repeat(64)), false);
  assert.equal(trust.withdraw(store, file), true);
  assert.equal(trust.isApproved(store, file, 'a'.repeat(64)), false);
  writeFileSync(store, '{"projects": "garbage"');
  assert.equal(trust.isApproved(store, file, 'a'.repeat(64)), false);
});

test('pins: the project files a server names are hashed with the approval; nothing else is', () => {
  const repo = join(dir, 'pins-repo');
  const cwd = join(repo, 'sub');
  const put = (path: string, text: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };
  mkdirSync(join(repo, '.git'), { recursive: true });
  put(join(cwd, 'tools', 'srv.py'), 'print(1)');
  put(join(repo, 'lib', 'boot.js'), '1');
  put(join(dir, 'outside.py'), 'mine');
  put(join(repo, 'data', 'real.py'), 'via a link');
  symlinkSync(join(repo, 'data', 'real.py'), join(cwd, 'linked.py'));
  mkdirSync(join(cwd, 'workdir'), { recursive: true });
  const server = (command: string, args: string[], env: Record<string, string> = {}) => ({
    kind: 'stdio',
    name: 's',
    source: 'project',
    command,
    args,
    env,
  });
  const pinned = pins.projectPins(
    [
      server('python3', [
        'tools/srv.py',
        '--root',
        'workdir',
        '.',
        '-y',
        '@scope/pkg',
        'https://x/y',
      ]),
      server('node', [
        '--require=../lib/boot.js',
        'linked.py',
        'later.py',
        join(dir, 'outside.py'),
      ]),
      server('./bin/run', [], { NODE_OPTIONS: '--require ./tools/srv.py' }),
      { kind: 'http', name: 'h', source: 'project', url: 'http://x/', headers: {} },
    ],
    cwd,
  );
  assert.deepEqual(pinned.problems, []);
  assert.deepEqual(
    pinned.files.map((f: { path: string; state: string }) => `${f.state} ${f.path}`),
    [
      'file lib/boot.js',
      'missing sub/bin/run',
      'missing sub/later.py',
      'file sub/linked.py',
      'file sub/tools/srv.py',
    ],
    'paths from the repository root; directories, packages, URLs and files outside left out',
  );
  const linked = pinned.files.find((f: { path: string }) => f.path === 'sub/linked.py');
  assert.equal(linked.real, join(repo, 'data', 'real.py'));
  const sha = 'c'.repeat(64);
  const approval = pins.approvalHash(sha, pinned);
  assert.notEqual(approval, sha);
  assert.equal(
    pins.approvalHash(sha, { files: [], problems: [] }),
    sha,
    'nothing named: the file hash',
  );
  const only = () => pins.projectPins([server('python3', ['tools/srv.py'])], cwd);
  const before = pins.approvalHash(sha, only());
  writeFileSync(join(cwd, 'tools', 'srv.py'), 'print(2)');
  assert.notEqual(pins.approvalHash(sha, only()), before, 'an edit of the program changes it');
  writeFileSync(join(repo, 'data', 'real.py'), 'changed behind the link');
  assert.notEqual(
    pins.approvalHash(sha, pins.projectPins([server('node', ['linked.py'])], cwd)),
    pins.approvalHash(sha, pinned),
  );
  put(join(cwd, 'later.py'), 'appeared');
  const appeared = pins.projectPins([server('node', ['later.py'])], cwd);
  assert.equal(appeared.files[0].state, 'file');
  // Too large to pin (a sparse file: nothing is written): a problem, so no approval.
  put(join(cwd, 'huge.bin'), '');
  truncateSync(join(cwd, 'huge.bin'), pins.PIN_LIMITS.fileBytes + 1);
  const huge = pins.projectPins([server('./huge.bin', [])], cwd);
  assert.deepEqual(huge.files, []);
  assert.match(huge.problems[0], /^sub\/huge\.bin \(named by server "s"\) is too large to pin/);
});

test('tool cache: keyed by everything that decides what runs; nothing of the configuration stored', () => {
  const stdio = (fields: Record<string, unknown> = {}) => ({
    kind: 'stdio',
    name: 's',
    source: 'user',
    command: 'node',
    args: ['srv.js'],
    env: { A: '1', TOKEN: 'secret-value' },
    ...fields,
  });
  const http = (fields: Record<string, unknown> = {}) => ({
    kind: 'http',
    name: 'h',
    source: 'user',
    url: 'https://x/mcp',
    headers: { Authorization: 'Bearer t' },
    ...fields,
  });
  const key = cache.cacheKey(stdio(), '/p');
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(key, cache.cacheKey(stdio({ env: { TOKEN: 'secret-value', A: '1' } }), '/p'));
  assert.equal(key, cache.cacheKey(stdio({ name: 'renamed', startupTimeoutMs: 5 }), '/p'));
  const changed = [
    cache.cacheKey(stdio({ command: 'python3' }), '/p'),
    cache.cacheKey(stdio({ args: ['srv.js', '-v'] }), '/p'),
    cache.cacheKey(stdio({ env: { A: '1', TOKEN: 'other' } }), '/p'),
    cache.cacheKey(stdio({ env: { A: '1' } }), '/p'),
    cache.cacheKey(stdio({ source: 'project' }), '/p'),
    cache.cacheKey(stdio(), '/elsewhere'),
  ];
  assert.equal(new Set([key, ...changed]).size, changed.length + 1);
  const h = cache.cacheKey(http(), '/p');
  assert.equal(h, cache.cacheKey(http(), '/elsewhere'), 'an HTTP server is the same anywhere');
  assert.notEqual(h, cache.cacheKey(http({ url: 'https://x/other' }), '/p'));
  assert.notEqual(h, cache.cacheKey(http({ headers: { Authorization: 'Bearer u' } }), '/p'));

  const home = join(dir, 'cache-home');
  const listed = [
    { name: 'a', description: 'A', inputSchema: { type: 'object' }, annotations: { x: 1 } },
    { name: 'b', execution: { taskSupport: 'required' } },
  ];
  assert.deepEqual(cache.readCachedTools(home, key), {}, 'no entry: nothing, no problem');
  assert.equal(cache.writeCachedTools(home, key, 's', listed), undefined);
  assert.deepEqual(cache.readCachedTools(home, key).tools, [
    { name: 'a', description: 'A', inputSchema: { type: 'object' } },
    { name: 'b', execution: { taskSupport: 'required' } },
  ]);
  const path = join(home, 'mcp-cache', `${key}.json`);
  assert.equal(statSync(join(home, 'mcp-cache')).mode & 0o777, 0o700);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const text = readFileSync(path, 'utf8');
  for (const secret of ['secret-value', 'srv.js', 'node']) assert.ok(!text.includes(secret));
});

test('tool cache: hostile or broken entries are not used, and a cached schema is checked as a fresh one', () => {
  const home = join(dir, 'hostile-cache');
  const key = 'e'.repeat(64);
  const entries = join(home, 'mcp-cache');
  const path = join(entries, `${key}.json`);
  const put = (doc: unknown) => writeFileSync(path, JSON.stringify(doc), { mode: 0o600 });
  assert.equal(cache.writeCachedTools(home, key, 's', [{ name: 'ok' }]), undefined);
  const problem = () => cache.readCachedTools(home, key).problem as string;
  put({ version: 1, key: 'f'.repeat(64), tools: [] });
  assert.match(problem(), /not an entry of ours; not used$/, 'an entry copied under another key');
  put({ version: 1, key, tools: Array.from({ length: 501 }, (_, i) => ({ name: `t${i}` })) });
  assert.match(problem(), /at most 500/);
  put({ version: 1, key, tools: [{ description: 'no name' }] });
  assert.match(problem(), /a tool without a name/);
  writeFileSync(path, '{"version": 1, ');
  assert.match(problem(), /JSON/);
  truncateSync(path, cache.CACHE_LIMITS.entryBytes + 1);
  assert.match(problem(), /over 4194304 bytes/);
  rmSync(path);
  writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ version: 1, key, tools: [] }));
  symlinkSync(join(dir, 'elsewhere.json'), path);
  assert.ok(problem(), 'a symlinked entry is not followed');
  rmSync(path);
  chmodSync(entries, 0o777);
  assert.match(problem(), /writable by other users/);
  assert.match(cache.writeCachedTools(home, key, 's', []), /writable by other users/);
  chmodSync(entries, 0o700);

  // Schemas from the cache go through the checks a listing's go through.
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
  const listed = [
    { name: 'fine', inputSchema: { type: 'object' } },
    { name: 'deep', inputSchema: { type: 'object', properties: { a: deep } } },
    { name: 'x'.repeat(70) },
  ];
  assert.equal(cache.writeCachedTools(home, key, 's', listed), undefined);
  const bridged = tools.bridgeTools('s', cache.readCachedTools(home, key).tools, new Set(), 100);
  assert.deepEqual(
    bridged.tools.map((t: { zotName: string }) => t.zotName),
    ['mcp__s__fine'],
  );
  assert.equal(bridged.skipped.length, 2);
});

test('tool cache: at most 200 entries; the least recently used go', () => {
  const home = join(dir, 'full-cache');
  const key = (i: number) => i.toString(16).padStart(64, '0');
  const limit = cache.CACHE_LIMITS.entries;
  for (let i = 0; i < limit; i++) {
    assert.equal(cache.writeCachedTools(home, key(i), 's', [{ name: `t${i}` }]), undefined);
    // Entry i was last used i seconds after the first.
    const at = new Date(Date.UTC(2020, 0, 1, 0, 0, i));
    utimesSync(join(home, 'mcp-cache', `${key(i)}.json`), at, at);
  }
  // Using an entry (a listing equal to it) makes it recent again.
  const same = [{ name: 't0' }];
  assert.equal(cache.writeCachedTools(home, key(0), 's', same, same), undefined);
  assert.equal(cache.writeCachedTools(home, key(limit), 's', [{ name: 'new' }]), undefined);
  const left = readdirSync(join(home, 'mcp-cache'));
  assert.equal(left.length, limit);
  assert.ok(left.includes(`${key(0)}.json`), 'used just now');
  assert.ok(!left.includes(`${key(1)}.json`), 'the least recently used');
  assert.ok(left.includes(`${key(limit)}.json`));
});
