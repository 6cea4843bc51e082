import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { limitOutput, type OutputLimits } from './output-limit.js';

const dir = mkdtempSync(join(tmpdir(), 'zot-limit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const limits: OutputLimits = { maxLines: 5, maxBytes: 100, maxImageChars: 16, dir };

test('output within the limits is returned as it is', () => {
  const output = { content: [{ type: 'text' as const, text: 'a\nb' }], isError: true };
  assert.equal(limitOutput(output, limits), output);
});

test('text blocks past the limits are joined, cut to the head and saved whole', () => {
  const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
  const out = limitOutput(
    {
      content: [
        { type: 'text', text: lines.slice(0, 6).join('\n') },
        { type: 'text', text: lines.slice(6).join('\n') },
      ],
      attribution: { extension: 'x', tool: 't' },
    },
    limits,
  );
  assert.equal(out.attribution?.extension, 'x');
  const text = (out.content[0] as { text: string }).text;
  assert.match(
    text,
    /^line 0\nline 1\nline 2\nline 3\nline 4\n\n\[output truncated: showing first 5 of 12 lines/,
  );
  const path = /saved to (\S+)\]$/.exec(text)![1]!;
  assert.equal(readFileSync(path, 'utf8'), lines.join('\n'));
});

test('one enormous line is cut inside; oversized images become a note', () => {
  const out = limitOutput(
    {
      content: [
        { type: 'text', text: 'x'.repeat(1000) },
        { type: 'image', mime_type: 'image/png', data: 'A'.repeat(40) },
        { type: 'image', mime_type: 'image/png', data: 'AAAA' },
      ],
    },
    limits,
  );
  assert.match(
    (out.content[0] as { text: string }).text,
    /^x{100}\n\n\[output truncated: showing the first 100 B of the first line/,
  );
  assert.match(
    (out.content[1] as { text: string }).text,
    /^\[image dropped: 40 B of base64, over the 16 B limit\]$/,
  );
  assert.deepEqual(out.content[2], { type: 'image', mime_type: 'image/png', data: 'AAAA' });
});
