// /copy's clipboard: OSC 52 carries the text made safe (bounded), a clipboard program gets
// the same text on stdin; a missing program is skipped quietly, a failing one is said; the
// report says which ways took it. And the answer it copies is the last one with text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../../contract/content.js';
import type { InteractiveSession } from '../../contract/front-end.js';
import { clipboardPrograms, copyToClipboard, MAX_OSC52_BASE64 } from './clipboard.js';
import { lastAnswer } from './own-commands.js';
import type { UserPrograms } from './terminal-handoff.js';

function programs(answers: Record<string, number | 'missing' | 'broken'>) {
  const runs: Array<{ argv: readonly string[]; input: string }> = [];
  const fake: UserPrograms = {
    onTerminal: async () => 0,
    withInput: async (argv, input) => {
      runs.push({ argv, input });
      const answer = answers[argv[0]] ?? 'missing';
      if (answer === 'missing') throw Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' });
      if (answer === 'broken') throw Object.assign(new Error('spawn EACCES'), { code: 'EACCES' });
      return answer;
    },
  };
  return { fake, runs };
}

const decode = (written: string) =>
  Buffer.from(/^\x1b\]52;c;([A-Za-z0-9+/=]*)\x07$/.exec(written)![1]!, 'base64').toString('utf8');

test('OSC 52 and the first clipboard program that works both get the text, made safe', async () => {
  const writes: string[] = [];
  const { fake, runs } = programs({ 'wl-copy': 'missing', xclip: 1, xsel: 0 });
  const report = await copyToClipboard('rm -rf /tmp/x\x1b[201~; echo pwned\nline two\ttab', {
    write: (data) => writes.push(data),
    env: { WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' },
    platform: 'linux',
    programs: fake,
  });
  const safe = 'rm -rf /tmp/x\\x1b[201~; echo pwned\nline two\ttab';
  assert.equal(decode(writes[0]!), safe);
  assert.deepEqual(
    runs.map((run) => run.argv[0]),
    ['wl-copy', 'xclip', 'xsel'],
  );
  assert.ok(runs.every((run) => run.input === safe));
  assert.deepEqual(report, {
    ok: true,
    text: 'through the terminal (OSC 52) and xsel (control characters copied as the escapes shown); xclip ended with 1',
  });
});

test('a text too long for OSC 52 is not sent that way; with no program, nothing is copied', async () => {
  const writes: string[] = [];
  const long = 'x'.repeat((MAX_OSC52_BASE64 / 4) * 3 + 3);
  const report = await copyToClipboard(long, {
    write: (d) => writes.push(d),
    env: {},
    platform: 'linux',
  });
  assert.deepEqual(writes, []);
  assert.equal(report.ok, false);
  assert.match(report.text, /^nothing was copied; too long for the terminal's clipboard/);
  const { fake } = programs({ pbcopy: 0 });
  const mac = await copyToClipboard(long, {
    write: () => undefined,
    env: {},
    platform: 'darwin',
    programs: fake,
  });
  assert.equal(mac.ok, true);
  assert.match(mac.text, /^through pbcopy; too long for the terminal's clipboard/);
});

test('clipboard programs by platform and display', () => {
  assert.deepEqual(clipboardPrograms({}, 'linux'), []);
  assert.deepEqual(clipboardPrograms({ WAYLAND_DISPLAY: 'w' }, 'linux'), [['wl-copy']]);
  assert.deepEqual(clipboardPrograms({ DISPLAY: ':1' }, 'linux')[0], [
    'xclip',
    '-selection',
    'clipboard',
  ]);
  assert.deepEqual(clipboardPrograms({}, 'darwin'), [['pbcopy']]);
});

test('a program that cannot start for another reason than absence is said', async () => {
  const { fake } = programs({ 'wl-copy': 'broken' });
  const report = await copyToClipboard('hi', {
    write: () => undefined,
    env: { WAYLAND_DISPLAY: 'w' },
    platform: 'linux',
    programs: fake,
  });
  assert.equal(report.text, 'through the terminal (OSC 52); wl-copy could not run (spawn EACCES)');
});

test('the last answer is the last assistant message with text (a tool call alone is skipped)', () => {
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'first ' },
        { type: 'text', text: 'answer' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'q2' }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c1', name: 'read', args: {} }],
    },
  ] as Message[];
  assert.equal(lastAnswer({ messages } as unknown as InteractiveSession), 'first answer');
  assert.equal(lastAnswer({ messages: [] } as unknown as InteractiveSession), undefined);
});
