import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSession, SessionWriter } from './store.js';

const root = mkdtempSync(join(tmpdir(), 'zot-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;
const header = () => ({
  type: 'session' as const,
  version: 1,
  cwd: '/',
  created: '',
  provider: 'p',
  model: 'm',
});

test("a transcript of zot's left readable by others is tightened when zot writes to it again", () => {
  const dir = join(root, 'old');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const file = join(dir, 's.jsonl');
  writeFileSync(file, JSON.stringify(header()) + '\n', { mode: 0o644 });
  chmodSync(file, 0o644);
  new SessionWriter(file, header, root).append({ type: 'clear', time: 'now' });
  assert.equal(modeOf(file), 0o600);
  assert.equal(modeOf(dir), 0o700);
});

test('a new transcript is 0600 in a 0700 directory', () => {
  const file = join(root, 'new', 'deeper', 's.jsonl');
  new SessionWriter(file, header, root).append({ type: 'clear', time: 'now' });
  assert.equal(modeOf(file), 0o600);
  assert.equal(modeOf(join(root, 'new', 'deeper')), 0o700);
});

test('files zot did not make keep their modes: a session elsewhere, its directory, a symlink', () => {
  const own = join(root, 'own');
  mkdirSync(own);
  const elsewhere = join(root, 'elsewhere');
  mkdirSync(elsewhere, { mode: 0o755 });
  chmodSync(elsewhere, 0o755);
  const file = join(elsewhere, 's.jsonl');
  writeFileSync(file, JSON.stringify(header()) + '\n', { mode: 0o644 });
  chmodSync(file, 0o644);
  new SessionWriter(file, header, own).append({ type: 'clear', time: 'now' });
  const link = join(own, 'link.jsonl');
  symlinkSync(file, link);
  new SessionWriter(link, header, own).append({ type: 'clear', time: 'now' });
  const fresh = join(elsewhere, 'fresh.jsonl');
  new SessionWriter(fresh, header, own).append({ type: 'clear', time: 'now' });
  assert.deepEqual([modeOf(file), modeOf(elsewhere), modeOf(fresh)], [0o644, 0o755, 0o600]);
  assert.equal(readFileSync(file, 'utf8').split('\n').length, 4); // header, two clears, ''
});

test('only a zot session or an empty file is appended to; anything else is refused unread', () => {
  const dir = join(root, 'kinds');
  mkdirSync(dir);
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['notes.txt', 'my notes\n', /its first line is not JSON/],
    ['data.json', '{"type":"message"}\n', /its first line is not a zot session header/],
    ['cut.jsonl', '{"type":"session","version":1', /its first line is not a zot session header/],
    [
      'bad.jsonl',
      '{"type":"session","version":0}\n',
      /its session header is invalid \(header\.version/,
    ],
    ['latin1.txt', Buffer.from('"caf\xe9"\n', 'latin1'), /its first line is not valid UTF-8/],
  ];
  for (const [name, content, reason] of cases) {
    const file = join(dir, name);
    writeFileSync(file, content, { mode: 0o644 });
    const message = new RegExp(
      `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a zot session file \\(`,
    );
    for (const open of [
      () => new SessionWriter(file, header, root),
      () => openSession(file, header, root),
    ]) {
      assert.throws(
        open,
        (error: Error) => message.test(error.message) && reason.test(error.message),
      );
    }
    assert.ok(readFileSync(file).equals(Buffer.from(content)), `${name} unchanged`);
    assert.equal(modeOf(file), 0o644, name);
  }
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '', { mode: 0o644 });
  openSession(empty, header, root).writer.append({ type: 'clear', time: 'now' });
  const lines = readFileSync(empty, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    lines.map((line) => line.type),
    ['session', 'clear'],
  );
  assert.equal(modeOf(empty), 0o644);
  // With a BOM and CRLF (a session file someone edited) it is still a session.
  const edited = join(dir, 'edited.jsonl');
  writeFileSync(edited, '\ufeff' + JSON.stringify(header()) + '\r\n');
  assert.equal(new SessionWriter(edited, header, root).exists, true);
});
