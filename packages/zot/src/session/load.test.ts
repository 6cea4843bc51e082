import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Message } from '../providers/types.js';
import { loadSessionText, MAX_LOAD_WARNINGS, summaryMessage } from './load.js';
import { INTERRUPTED_TEXT } from './repair.js';
import { TranscriptReplay } from './replay.js';
import { sessionLine as line } from './testing/session-lines.js';

const user = (text: string): Message => ({
  role: 'user',
  content: [{ type: 'text', text }],
  time: 't',
});
const entry = (message: Message) => line({ type: 'message', message });
const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'bash', args: {} });
const result = (id: string) => ({
  type: 'tool_result' as const,
  call_id: id,
  is_error: false,
  content: [{ type: 'text' as const, text: id }],
});
const roles = (messages: Message[]) =>
  messages.map((m) =>
    m.content
      .map((b) =>
        b.type === 'text'
          ? `${m.role}:${b.text}`
          : b.type === 'tool_call'
            ? `call:${b.id}`
            : b.type === 'tool_result'
              ? `result:${b.call_id}${b.is_error ? '!' : ''}`
              : b.type,
      )
      .join(','),
  );

test('CRLF, a BOM and blank lines load without warnings', () => {
  const text = '\ufeff' + entry(user('a')).replace('\n', '\r\n') + '\n  \n' + entry(user('b'));
  const loaded = loadSessionText(text, 'f');
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(roles(loaded.messages), ['user:a', 'user:b']);
});

test('a gigantic line, NUL bytes and invalid UTF-8 are skipped with warnings', () => {
  const bytes = Buffer.concat([
    Buffer.from(entry(user('kept'))),
    Buffer.alloc(8 * 1024 * 1024, 0x61), // one 8 MiB line of "aaa..."
    Buffer.from('\n\0\0\0\n\xc3\n'.split('').map((c) => c.charCodeAt(0))),
  ]);
  const loaded = loadSessionText(bytes, 'f');
  assert.deepEqual(loaded.warnings, [
    'f: skipped line 2: it is not JSON',
    'f: skipped line 3: it contains NUL bytes (the file was damaged)',
    'f: skipped line 4: it is not valid UTF-8',
  ]);
  assert.deepEqual(roles(loaded.messages), ['user:kept']);
});

test('warnings are capped; the rest are counted', () => {
  const loaded = loadSessionText('x\n'.repeat(100), 'f');
  assert.equal(loaded.warnings.length, MAX_LOAD_WARNINGS + 1);
  assert.equal(loaded.warnings.at(-1), `f: ${100 - MAX_LOAD_WARNINGS} more problems not shown`);
});

test('prototype names are not entry types or block types', () => {
  const text =
    line({ type: '__proto__' }) +
    line({ type: 'constructor' }) +
    line({ type: 'message', message: { role: 'toString', content: [], time: 't' } });
  const loaded = loadSessionText(text, 'f');
  assert.equal(loaded.warnings.length, 3);
  assert.deepEqual(loaded.messages, []);
});

test('dangling calls get interrupted results in place; orphan results are dropped', () => {
  const text =
    entry(user('q1')) +
    entry({ role: 'assistant', content: [call('a'), call('b')], time: 't' }) +
    entry({ role: 'tool', content: [result('b'), result('zz'), result('b')], time: 't' }) +
    entry({ role: 'tool', content: [result('late')], time: 't' }) +
    entry(user('q2')) +
    entry({ role: 'assistant', content: [call('c')], time: 't' }) +
    entry(user('q3')) +
    entry({ role: 'assistant', content: [call('d')], time: 't' });
  const loaded = loadSessionText(text, 'f');
  assert.deepEqual(roles(loaded.messages), [
    'user:q1',
    'call:a,call:b',
    'result:a!,result:b',
    'user:q2',
    'call:c',
    'result:c!',
    'user:q3',
    'call:d',
    'result:d!',
  ]);
  const interrupted = loaded.messages.at(-1)!.content[0];
  assert.deepEqual(interrupted, {
    type: 'tool_result',
    call_id: 'd',
    name: 'bash',
    is_error: true,
    content: [{ type: 'text', text: INTERRUPTED_TEXT }],
  });
  assert.equal(loaded.tailRepair, loaded.messages.at(-1));
  assert.equal(loaded.warnings.filter((w) => w.includes('has no result')).length, 3);
  assert.equal(loaded.warnings.filter((w) => w.includes('dropped the tool result')).length, 3);
});

test('only a wholly missing tool message at the very end is a tail repair', () => {
  const partial =
    entry(user('q')) +
    entry({ role: 'assistant', content: [call('a'), call('b')], time: 't' }) +
    entry({ role: 'tool', content: [result('a')], time: 't' });
  assert.equal(loadSessionText(partial, 'f').tailRepair, undefined);
  const complete = partial.replace(
    '[{"type":"tool_result"',
    '[' + JSON.stringify(result('b')) + ',{"type":"tool_result"',
  );
  const loaded = loadSessionText(complete, 'f');
  assert.deepEqual(loaded.warnings, []);
  assert.deepEqual(roles(loaded.messages), ['user:q', 'call:a,call:b', 'result:a,result:b']);
});

/** The obvious (quadratic) replay the linear one must agree with. */
function naiveReplay(ops: Array<['m' | 'c' | 'x', number]>): number[] {
  let list: number[] = [];
  ops.forEach(([op, kept], i) => {
    if (op === 'm') list.push(i);
    else if (op === 'c') list = [i, ...(kept > 0 ? list.slice(-kept) : [])];
    else list = [];
  });
  return list;
}

test('the linear replay agrees with the naive one on random entry sequences', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 300; round++) {
    const ops: Array<['m' | 'c' | 'x', number]> = [];
    for (let i = random(60); i > 0; i--) {
      const pick = random(10);
      ops.push([pick < 6 ? 'm' : pick < 9 ? 'c' : 'x', random(3) === 0 ? 1000 : random(6)]);
    }
    const replay = new TranscriptReplay();
    ops.forEach(([op, kept], i) => {
      const item = { message: summaryMessage(String(i), 't'), line: i };
      if (op === 'm') replay.append(item);
      else if (op === 'c') replay.compact(item, kept);
      else replay.clear();
    });
    assert.deepEqual(
      replay.messages().map((m) => m.line),
      naiveReplay(ops),
      JSON.stringify(ops),
    );
  }
});

test('never throws on arbitrary bytes', () => {
  let seed = 11;
  const pieces = [
    '{"type":"message","message":',
    '{"role":"assistant","content":[',
    '\n',
    '"',
    ']',
    '}',
    '\0',
    '\r',
    '\xff',
    'tool_call',
    '{"type":"compaction","time":"t","summary":"s","kept":3}',
  ];
  for (let round = 0; round < 500; round++) {
    let text = '';
    for (let i = 0; i < 30; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      text += pieces[seed % pieces.length];
    }
    const loaded = loadSessionText(Buffer.from(text, 'latin1'), 'f');
    assert.ok(Array.isArray(loaded.messages) && Array.isArray(loaded.warnings));
  }
});

test('tool result details load with the result; unreadable details are dropped, never the result', () => {
  const details = { kind: 'write', path: 'a.txt', bytes: 3, created: true } as const;
  const tool = (content: unknown[]) =>
    line({ type: 'message', message: { role: 'tool', content, time: 't' } });
  const text =
    entry(user('q')) +
    entry({ role: 'assistant', content: [call('a'), call('b'), call('c')], time: 't' }) +
    tool([
      { ...result('a'), details },
      { ...result('b'), details: { kind: 'grep', matches: 3 } },
      { ...result('c'), details: { ...details, bytes: -1 } },
    ]);
  const loaded = loadSessionText(text, 'f');
  assert.deepEqual(loaded.warnings, [
    'f: line 3: dropped tool result details this zot cannot read',
  ]);
  assert.deepEqual(loaded.messages.at(-1)?.content, [
    { ...result('a'), details },
    result('b'),
    result('c'),
  ]);
  // A file written before details existed loads as it always did.
  const old =
    entry(user('q')) +
    entry({ role: 'assistant', content: [call('a')], time: 't' }) +
    tool([result('a')]);
  const plain = loadSessionText(old, 'f');
  assert.deepEqual(plain.warnings, []);
  assert.deepEqual(roles(plain.messages), ['user:q', 'call:a', 'result:a']);
});

test('an export leaves out exactly the lines a resume skips, each named with why', async () => {
  const { documentFromSessionBytes } = await import('./export/document.js');
  const deep = '['.repeat(200) + ']'.repeat(200);
  const text = [
    '\ufeff' +
      line({ type: 'session', version: 1, cwd: '/p', created: 't', provider: 'a', model: 'm' }),
    entry(user('one')).replace('\n', '\r\n'),
    '   \t\n',
    'not json\n',
    line({ type: 'message', message: { role: 'user', content: 'not blocks', time: 't' } }),
    deep + '\n',
    line({ type: 'telepathy', time: 't' }),
    entry(user('two')),
    '{"type":"message","mess', // cut short by a crash
  ].join('');
  for (const data of [Buffer.from(text), Buffer.concat([Buffer.from(text), Buffer.from([0])])]) {
    const loaded = loadSessionText(data, 'f');
    const exported = documentFromSessionBytes(data, 'f');
    const lines = (warnings: string[]) => warnings.map((w) => Number(/line (\d+)/.exec(w)?.[1]));
    assert.deepEqual(lines(loaded.warnings), [4, 5, 6, 7, 9]);
    assert.deepEqual(lines(exported.warnings), [4, 5, 6, 7, 9]);
    // The same reason, worded for each: "skipped line 4: it is not JSON", "left out line 4: ...".
    for (const [i, warning] of exported.warnings.slice(0, 4).entries())
      assert.equal(warning.replace('left out', 'skipped'), loaded.warnings[i]);
    assert.deepEqual(roles(loaded.messages), ['user:one', 'user:two']);
    assert.deepEqual(
      exported.items.map((item) => item.line),
      [2, 8],
    );
  }
});
