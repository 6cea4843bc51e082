// `zot export` and `/export`, end to end: a session recorded by a real run against the scripted
// model is exported; the HTML page is opened in headless Chromium and must show every turn, and
// a hostile session must stay inert in it (no script runs, nothing is fetched); the Markdown is
// read back and must hold every text exactly.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { loadSession } from '../src/session/store.js';
import type { Message } from '../src/providers/types.js';
import { chromiumMissing, dumpDom, startTags } from './support/chromium.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { expectedBlocks, readMarkdownExport } from './support/markdown-export.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

function setup(t: TestContext) {
  const box = makeSandbox();
  t.after(box.cleanup);
  return box;
}

function sessionFiles(home: string): string[] {
  const root = join(home, 'sessions');
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
  );
}

/** Two turns: thinking, a bash call and an answer; then an edit (a diff) and an answer. */
async function recordSession(box: { home: string; project: string }): Promise<string> {
  writeFileSync(join(box.project, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  llm.script(
    {
      thinking: 'I should list the files first.',
      toolCalls: [{ name: 'bash', args: { command: 'echo listing && ls' } }],
    },
    { text: 'The directory holds notes.txt.\n\n```sh\nls -la\n```' },
  );
  const first = await runZot([...fakeLlmFlags(llm.url), '-p', 'What is in here?'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(first.code, 0, first.stderr);
  llm.script(
    {
      toolCalls: [
        {
          name: 'edit',
          args: { path: 'notes.txt', edits: [{ oldText: 'beta', newText: 'BETA' }] },
        },
      ],
    },
    { text: 'Done: beta is now BETA.' },
  );
  const second = await runZot([...fakeLlmFlags(llm.url), '-c', '-p', 'Capitalise beta'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(second.code, 0, second.stderr);
  const files = sessionFiles(box.home);
  assert.equal(files.length, 1);
  return files[0]!;
}

const userTexts = (messages: readonly Message[]) =>
  messages.flatMap((m) =>
    m.role === 'user' ? m.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])) : [],
  );

test('zot export writes an HTML page Chromium shows with every turn, tool rows folded, the edit as a coloured diff', async (t) => {
  const missing = chromiumMissing();
  const box = setup(t);
  const file = await recordSession(box);
  const out = join(box.project, 'page.html');
  const result = await runZot(['export', '-o', out], { home: box.home, cwd: box.project });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /exported 6 messages of .* to .*page\.html/);
  const html = readFileSync(out, 'utf8');
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  assert.doesNotMatch(html, /<script|<link|https?:\/\//i, 'the page loads nothing');
  if (missing) return t.skip(missing);

  const dom = await dumpDom(out);
  const { messages } = loadSession(file);
  for (const text of userTexts(messages)) assert.ok(dom.includes(text), `prompt "${text}" shown`);
  assert.ok(dom.includes('The directory holds notes.txt.'));
  assert.ok(dom.includes('Done: beta is now BETA.'));
  assert.ok(dom.includes('I should list the files first.'));
  const tags = startTags(dom);
  const classes = (name: string, cls: string) =>
    tags.filter(
      (tag) => tag.name === name && tag.attributes.get('class')?.split(' ').includes(cls),
    );
  assert.equal(classes('section', 'user').length, 2, 'both turns');
  assert.equal(classes('section', 'assistant').length, 4);
  assert.equal(classes('details', 'tool').length, 2, 'one folded row per tool call');
  assert.equal(classes('details', 'thinking').length, 1, 'thinking folded');
  assert.ok(
    tags.every((tag) => !tag.attributes.has('open')),
    'rows start folded',
  );
  assert.ok(dom.includes('<span class="del">-beta</span>'), 'removed line coloured');
  assert.ok(dom.includes('<span class="add">+BETA</span>'), 'added line coloured');
  assert.ok(dom.includes('listing'), 'bash output inside its row');
  assert.equal(classes('pre', 'code').length, 1, "the answer's code block");
  const nav = tags.filter((tag) => tag.name === 'a').map((tag) => tag.attributes.get('href'));
  assert.deepEqual(nav, ['#turn-1', '#turn-2']);
});

test('zot export --md round-trips every text; ids, stdout, -o and exit codes', async (t) => {
  const box = setup(t);
  const file = await recordSession(box);
  const { messages } = loadSession(file);
  const md = await runZot(['export', '--md'], { home: box.home, cwd: box.project });
  assert.equal(md.code, 0, md.stderr);
  assert.deepEqual(readMarkdownExport(md.stdout), expectedBlocks(messages));
  assert.match(md.stdout, /^# What is in here\?$/m);
  assert.match(md.stdout, /^## Turn 2 · You · /m);
  assert.match(md.stdout, /^\*\*Tool call:\*\* `edit`$/m);

  // The session by its id (the random part of its file name), by path, to a .md file.
  const id = /_([0-9a-f]+)\.jsonl$/.exec(file)![1]!;
  const byId = await runZot(['export', id, '-o', 'out.md'], { home: box.home, cwd: box.project });
  assert.equal(byId.code, 0, byId.stderr);
  assert.equal(
    readFileSync(join(box.project, 'out.md'), 'utf8').replace(/[0-9a-f]{12}/g, 'T'),
    md.stdout.replace(/[0-9a-f]{12}/g, 'T'),
  );
  const byPath = await runZot(['export', file, '--html'], { home: box.home, cwd: box.project });
  assert.equal(byPath.code, 0, byPath.stderr);
  const name = `zot-session-${file.replace(/^.*\//, '').replace(/\.jsonl$/, '')}.html`;
  assert.match(readFileSync(join(box.project, name), 'utf8'), /^<!DOCTYPE html>/);

  const help = await runZot(['export', '--help'], { home: box.home, cwd: box.project });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: zot export/);
  const usage = await runZot(['export', '--html', '--md'], { home: box.home, cwd: box.project });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--html or --md, not both/);
  const missing = await runZot(['export', 'nosuchid'], { home: box.home, cwd: box.project });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no session file nosuchid/);
  const empty = setup(t);
  const none = await runZot(['export'], { home: empty.home, cwd: empty.project });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no session of .* to export/);
});

test('/export in print mode writes the page of the running session', async (t) => {
  const box = setup(t);
  await recordSession(box);
  const run = await runZot([...fakeLlmFlags(llm.url), '-c', '-p', '/export saved.md'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /exported 6 messages to .*saved\.md/);
  const blocks = readMarkdownExport(readFileSync(join(box.project, 'saved.md'), 'utf8'));
  assert.deepEqual(
    blocks.filter((b) => b.kind === 'user').map((b) => (b as { text: string }).text),
    ['What is in here?', 'Capitalise beta'],
  );
});

/** A 1x1 PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

// A session file as a hostile party could write it: markup, script and links in every text,
// ANSI escapes, a tool name and file names that are markup, a huge output, images that are no
// images, and text that imitates the Markdown export's own structure.
function hostileSession(port: number): { lines: string; messages: Message[] } {
  const url = `http://127.0.0.1:${port}`;
  const pwn = (n: number) => `document.body.setAttribute('data-pwned','${n}')`;
  const markup = [
    `<script>${pwn(1)}</script>`,
    `<img src="${url}/img" onerror="${pwn(2)}">`,
    `[click me](javascript:${pwn(3)})`,
    `<a href="javascript:${pwn(4)}">link</a>`,
    `<link rel="stylesheet" href="${url}/css"><style>@import url(${url}/import);</style>`,
    `<meta http-equiv="refresh" content="0;url=${url}/refresh">`,
    `<iframe src="${url}/frame"></iframe><object data="${url}/object"></object>`,
    `</pre></code></details></section><svg onload="${pwn(5)}"></svg>`,
  ].join('\n');
  const time = '2026-01-01T00:00:00Z';
  const big = `${'x'.repeat(300 * 1024)}<script>${pwn(6)}</script>`;
  const messages: Message[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: `${markup}\n\x1b[31mred\x1b[0m \u202eevil\u202c` },
        { type: 'image', mime_type: 'image/svg+xml', data: btoa(`<svg onload="${pwn(7)}"/>`) },
        { type: 'image', mime_type: 'image/png', data: `"><script>${pwn(8)}</script>` },
        { type: 'image', mime_type: 'image/png', data: PNG },
      ],
      time: `<script>${pwn(9)}</script>`,
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `${markup}\n> quoted\n\n<!-- /zot:000000000000 -->` },
        {
          type: 'text',
          text: `## Turn 99 · You · never\n<!-- zot:000000000000 user -->\n${markup}\n\`\`\`\`js\nunclosed ${'`'.repeat(7)}`,
        },
        {
          type: 'tool_call',
          id: 'c1',
          name: `<img src=x onerror="${pwn(10)}">`,
          args: { command: markup, path: '"><script>x</script>' },
        },
        { type: 'tool_call', id: 'c2', name: 'edit', args: { path: markup } },
      ],
      time,
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          call_id: 'c1',
          is_error: false,
          content: [{ type: 'text', text: big }],
        },
        {
          type: 'tool_result',
          call_id: 'c2',
          is_error: true,
          content: [{ type: 'text', text: `${'`'.repeat(12)}\n${markup}` }],
          details: {
            kind: 'edit',
            path: `<b onmouseover="${pwn(11)}">x</b>`,
            added: 1,
            removed: 1,
            hunks: [
              {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
                lines: [`-${markup}`, '+ok'],
              },
            ],
          },
          attribution: { extension: `<script>${pwn(12)}</script>`, tool: 't' },
        },
      ],
      time,
    },
  ];
  const header = {
    type: 'session',
    version: 1,
    cwd: `/tmp/<script>${pwn(13)}</script>`,
    created: time,
    provider: 'anthropic',
    model: `<img src=${url}/model>`,
  };
  const lines = [header, ...messages.map((message) => ({ type: 'message', message }))]
    .map((entry) => JSON.stringify(entry))
    .join('\n');
  return {
    lines: `${lines}\n{"type":"name","time":"t","name":"<script>${pwn(14)}</script>"}\n`,
    messages,
  };
}

test('a hostile session exports inert: no script runs and nothing is fetched in Chromium; the Markdown still round-trips', async (t) => {
  const missing = chromiumMissing();
  const box = setup(t);
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    response.end('');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  const { lines, messages } = hostileSession(port);
  const file = join(box.project, 'hostile.jsonl');
  writeFileSync(file, lines);

  const md = await runZot(['export', file, '--md', '-o', 'out.md'], {
    home: box.home,
    cwd: box.project,
  });
  assert.equal(md.code, 0, md.stderr);
  const markdown = readFileSync(join(box.project, 'out.md'), 'utf8');
  assert.deepEqual(readMarkdownExport(markdown), expectedBlocks(messages));

  const out = join(box.project, 'hostile.html');
  const html = await runZot(['export', file, '-o', out], { home: box.home, cwd: box.project });
  assert.equal(html.code, 0, html.stderr);
  const page = readFileSync(out, 'utf8');
  assert.doesNotMatch(page, /<script|<img src="[^d]|<iframe|<object|<svg|<link|<a href="j/i);
  assert.ok(page.includes('\\x1b[31mred\\x1b[0m \\u202eevil'), 'escapes shown, not sent');
  assert.ok(page.includes('more characters not shown'), 'the huge output is cut');
  assert.ok(page.length < 1024 * 1024, `the page stays bounded (${page.length})`);
  if (missing) return t.skip(missing);

  const dom = await dumpDom(out);
  assert.deepEqual(hits, [], 'nothing was fetched');
  const tags = startTags(dom);
  assert.ok(tags.length > 20, 'the page was parsed');
  assert.ok(!tags.some((tag) => tag.attributes.has('data-pwned')), 'no script ran');
  for (const tag of tags) {
    assert.ok(!['script', 'iframe', 'object', 'svg', 'link', 'embed'].includes(tag.name), tag.name);
    for (const [name, value] of tag.attributes) {
      assert.ok(!name.startsWith('on'), `${tag.name} has ${name}`);
      if (name === 'src') assert.match(value, /^data:image\/(png|jpeg|gif|webp);base64,/);
      if (name === 'href') assert.match(value, /^#(turn|item|branch)-\d+$/);
    }
  }
  assert.ok(dom.includes('[click me](javascript:'), 'the link is text');
  assert.ok(dom.includes('&lt;script&gt;document.body'), 'the script is text');
  assert.equal(tags.filter((tag) => tag.name === 'section').length, 2);
  assert.equal(tags.filter((tag) => tag.name === 'img').length, 1, 'the one real image');
});

test('a session with branches exports each branch, linked to where it left, in HTML and Markdown', async (t) => {
  const missing = chromiumMissing();
  const box = setup(t);
  const time = '2026-01-01T00:00:00Z';
  const say = (role: 'user' | 'assistant', text: string) => ({
    type: 'message',
    message: { role, content: [{ type: 'text', text }], time },
  });
  const lines = [
    {
      type: 'session',
      version: 1,
      cwd: box.project,
      created: time,
      provider: 'anthropic',
      model: 'm',
    },
    say('user', 'first question'), // line 2
    say('assistant', 'first answer'),
    say('user', 'explore A'),
    say('assistant', 'answer A'), // line 5
    { type: 'branch_summary', time, leaf: 5, summary: 'A tried X and it failed', by: 'zot' },
    { type: 'branch', time, to: 3 },
    say('user', 'explore B'),
    say('assistant', 'answer B'),
    { type: 'merge', time, from: 5, label: 'branch 1', text: 'A tried X and it failed' },
  ];
  const file = join(box.project, 'branched.jsonl');
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');

  const md = await runZot(['export', file, '--md'], { home: box.home, cwd: box.project });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /^## Branch 1$/m);
  assert.match(md.stdout, /^## Branch 2 · active$/m);
  assert.match(md.stdout, /^\*Leaves branch 1 after line 3 of the session file\.\*$/m);
  assert.deepEqual(
    readMarkdownExport(md.stdout).map((block) => ('text' in block ? block.text : block.kind)),
    [
      'A tried X and it failed',
      'first question',
      'first answer',
      'explore A',
      'answer A',
      'explore B',
      'answer B',
      'A tried X and it failed',
    ],
  );

  const out = join(box.project, 'branched.html');
  const html = await runZot(['export', file, '-o', out], { home: box.home, cwd: box.project });
  assert.equal(html.code, 0, html.stderr);
  if (missing) return t.skip(missing);
  const dom = await dumpDom(out);
  const tags = startTags(dom);
  const branches = tags.filter(
    (tag) => tag.name === 'section' && tag.attributes.get('class') === 'branch',
  );
  assert.deepEqual(
    branches.map((tag) => tag.attributes.get('id')),
    ['branch-1', 'branch-2'],
  );
  const hrefs = tags.flatMap((tag) => (tag.name === 'a' ? [tag.attributes.get('href')!] : []));
  for (const href of ['#branch-1', '#branch-2', '#turn-1', '#turn-2', '#turn-3'])
    assert.ok(hrefs.includes(href), href);
  // Branch 2 links to the entry it continues after: the first answer.
  const after = hrefs.find((href) => href.startsWith('#item-'))!;
  const ids = tags.filter((tag) => tag.attributes.get('id') === after.slice(1));
  assert.equal(ids.length, 1);
  const at = dom.indexOf(`id="${after.slice(1)}"`);
  assert.ok(
    dom.slice(at, at + 400).includes('first answer'),
    'the link points at the branch point',
  );
  for (const text of ['explore A', 'answer B', 'A tried X and it failed'])
    assert.ok(dom.includes(text), text);
});
