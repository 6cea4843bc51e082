import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createReadTool } from './read.js';
import { makeContext, tempDir, textOf } from './test-helpers.js';

// A real 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let dir = '';
let cleanup = (): void => {};
before(() => ({ dir, cleanup } = tempDir()));
after(() => cleanup());

const read = createReadTool();
const run = (args: Record<string, unknown>) => read.execute(args, makeContext(dir));
const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line${from + i}`).join('\n');

test('numbers each line: right-aligned number, tab, line', async () => {
  writeFileSync(join(dir, 'abc.txt'), 'a\nb\nc\n');
  const output = await run({ path: 'abc.txt' });
  assert.equal(output.isError, false);
  assert.equal(textOf(output), '1\ta\n2\tb\n3\tc');
});

test('offset and limit select lines; numbers align; a note says where to continue', async () => {
  writeFileSync(join(dir, 'twelve.txt'), numbered(1, 12) + '\n');
  const output = await run({ path: 'twelve.txt', offset: 9, limit: 3 });
  assert.equal(
    textOf(output),
    ' 9\tline9\n10\tline10\n11\tline11\n\n[... 1 more line; continue with offset=12]',
  );
  assert.equal(textOf(await run({ path: 'twelve.txt', offset: 12 })), '12\tline12');
});

test('returns at most 2000 lines by default', async () => {
  writeFileSync(join(dir, 'long.txt'), numbered(1, 2500));
  const text = textOf(await run({ path: 'long.txt' }));
  const lines = text.split('\n');
  assert.equal(lines[0], '   1\tline1');
  assert.equal(lines[1999], '2000\tline2000');
  assert.equal(lines.at(-1), '[... 500 more lines; continue with offset=2001]');
});

test('cuts lines longer than 2000 characters with a marker', async () => {
  writeFileSync(join(dir, 'wide.txt'), `${'x'.repeat(3000)}\nshort\n`);
  const [first, second] = textOf(await run({ path: 'wide.txt' })).split('\n');
  assert.ok(first?.startsWith(`1\t${'x'.repeat(2000)} [... line cut at 2000 characters`));
  assert.ok(first?.includes('3000 bytes'));
  assert.equal(second, '2\tshort');
});

test('caps the output at about 50 KB and says where to continue', async () => {
  const line = 'y'.repeat(99);
  writeFileSync(join(dir, 'big.txt'), `${line}\n`.repeat(1000));
  const text = textOf(await run({ path: 'big.txt' }));
  assert.ok(Buffer.byteLength(text) <= 50 * 1024 + 200);
  const match =
    /\[\.\.\. output capped at 50 KB; (\d+) more lines; continue with offset=(\d+)\]$/.exec(text);
  assert.ok(match, text.slice(-200));
  assert.equal(Number(match[1]) + Number(match[2]) - 1, 1000);
});

test('drops CR of CRLF lines and a leading BOM', async () => {
  writeFileSync(join(dir, 'crlf.txt'), '\uFEFFone\r\ntwo\r\n');
  assert.equal(textOf(await run({ path: 'crlf.txt' })), '1\tone\n2\ttwo');
});

test('reports an empty file', async () => {
  writeFileSync(join(dir, 'empty.txt'), '');
  const output = await run({ path: 'empty.txt' });
  assert.equal(output.isError, false);
  assert.equal(textOf(output), 'empty.txt is empty (0 bytes)');
});

test('errors name the tool and the path', async () => {
  const missing = await run({ path: 'src/x.ts' });
  assert.equal(missing.isError, true);
  assert.equal(textOf(missing), 'read: no such file: src/x.ts');

  mkdirSync(join(dir, 'folder'));
  const folder = await run({ path: 'folder' });
  assert.equal(folder.isError, true);
  assert.match(textOf(folder), /^read: folder is a directory/);

  const past = await run({ path: 'abc.txt', offset: 10 });
  assert.equal(past.isError, true);
  assert.match(textOf(past), /offset 10 is past the end of abc.txt \(3 lines\)/);
});

test('refuses bad offset and limit values with a clear error', async () => {
  for (const args of [{ offset: -1 }, { offset: 0 }, { limit: 0 }, { offset: 1.5 }]) {
    const output = await run({ path: 'abc.txt', ...args });
    assert.equal(output.isError, true);
    assert.match(textOf(output), /^read: (offset|limit) must be a whole number >= 1/);
  }
});

test('detects a PNG by its magic bytes, whatever the extension', async () => {
  writeFileSync(join(dir, 'picture.txt'), PNG);
  const output = await run({ path: 'picture.txt' });
  assert.equal(output.isError, false);
  const image = output.content.find((block) => block.type === 'image');
  assert.deepEqual(image, { type: 'image', mime_type: 'image/png', data: PNG.toString('base64') });
  assert.match(textOf(output), new RegExp(`picture.txt \\(image/png, ${PNG.length} bytes\\)`));

  writeFileSync(join(dir, 'fake.png'), 'not an image\n');
  assert.equal(textOf(await run({ path: 'fake.png' })), '1\tnot an image');
});

test('refuses images over the size limit', async () => {
  writeFileSync(join(dir, 'big.png'), PNG);
  const tool = createReadTool({ maxImageBytes: 10 });
  const output = await tool.execute({ path: 'big.png' }, makeContext(dir));
  assert.equal(output.isError, true);
  assert.match(textOf(output), /^read: big\.png is a PNG image of \d+ B, over the 10 B limit/);
});

test('detects JPEG, GIF and WebP', async () => {
  const samples: Array<[string, Buffer]> = [
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
    ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
    ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])],
  ];
  for (const [mime, bytes] of samples) {
    writeFileSync(join(dir, 'sample.bin'), bytes);
    const image = (await run({ path: 'sample.bin' })).content.find((b) => b.type === 'image');
    assert.equal(image?.type === 'image' && image.mime_type, mime);
  }
});

test('refuses other binary files', async () => {
  writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
  const output = await run({ path: 'blob.bin' });
  assert.equal(output.isError, true);
  assert.equal(
    textOf(output),
    'read: blob.bin is a binary file (8 bytes); use bash (e.g. xxd, file) to inspect it',
  );
  // No NUL byte, but mostly invalid UTF-8.
  writeFileSync(
    join(dir, 'noise.bin'),
    Buffer.from(Array.from({ length: 512 }, (_, i) => 0x80 + (i % 100))),
  );
  assert.match(textOf(await run({ path: 'noise.bin' })), /is a binary file \(512 bytes\)/);
  // A stray Latin-1 byte in text is still text.
  writeFileSync(
    join(dir, 'latin1.txt'),
    Buffer.from('caf\xe9 au lait, a long enough line\n', 'latin1'),
  );
  assert.equal((await run({ path: 'latin1.txt' })).isError, false);
});

test('expands ~ to the home directory and accepts absolute paths', async () => {
  const tool = createReadTool({ homeDir: dir });
  assert.equal(
    textOf(await tool.execute({ path: '~/abc.txt' }, makeContext('/'))),
    '1\ta\n2\tb\n3\tc',
  );
  assert.equal(textOf(await run({ path: join(dir, 'abc.txt'), limit: 1 })).split('\n')[0], '1\ta');
});

test('preview shows the path and any range', () => {
  assert.equal(read.preview?.({ path: 'a.ts' }), 'a.ts');
  assert.equal(read.preview?.({ path: 'a.ts', offset: 10, limit: 5 }), 'a.ts:10-14');
});

test('details: the path, the lines shown and the total, or the image type', async () => {
  writeFileSync(join(dir, 'd.txt'), numbered(1, 12) + '\n');
  assert.deepEqual((await run({ path: 'd.txt', offset: 3, limit: 4 })).details, {
    kind: 'read',
    path: 'd.txt',
    total_lines: 12,
    first_line: 3,
    last_line: 6,
  });
  // Capped by bytes: last_line is the last line actually shown.
  writeFileSync(join(dir, 'd-big.txt'), `${'z'.repeat(99)}\n`.repeat(1000));
  const big = await run({ path: 'd-big.txt' });
  const next = Number(/offset=(\d+)\]$/.exec(textOf(big))?.[1]);
  assert.equal(big.details?.kind === 'read' && big.details.last_line, next - 1);
  writeFileSync(join(dir, 'd.png'), PNG);
  assert.deepEqual((await run({ path: 'd.png' })).details, {
    kind: 'read',
    path: 'd.png',
    mime_type: 'image/png',
  });
  writeFileSync(join(dir, 'd-empty.txt'), '');
  assert.deepEqual((await run({ path: 'd-empty.txt' })).details, {
    kind: 'read',
    path: 'd-empty.txt',
    total_lines: 0,
  });
  assert.equal((await run({ path: 'missing.txt' })).details, undefined);
});
