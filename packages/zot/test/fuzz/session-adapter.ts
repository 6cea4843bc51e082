// The one place the session fuzz touches the loader: the pure parser of session file text.
import { deepStrictEqual, ok } from 'node:assert/strict';
import { loadSessionText, SessionLoading, type LoadedSession } from '../../src/session/load.js';
import { readTranscriptTail } from '../../src/session/transcript-tail.js';

/**
 * Parses the text of a session file. Contract under test: never throws, and what it returns
 * is safe for the code after it (serialising the transcript, as every request does).
 */
export function parseSessionText(text: string): LoadedSession {
  const loaded = loadSessionText(text, 'fuzz.jsonl');
  JSON.stringify(loaded.messages);
  return loaded;
}

/**
 * What a resumed TUI session relies on: the newest messages read from the file's end, when it
 * can tell them, are the last messages of the whole read; and reading in steps (stopping at
 * every clock check) gives what reading at once does.
 */
export function checkDeferredReads(text: string, loaded: LoadedSession): void {
  const bytes = Buffer.from(text, 'utf8');
  for (const count of [1, 2, 5]) {
    const tail = readTranscriptTail(bytes, count);
    if (tail === undefined) continue;
    const { messages } = loaded;
    ok(tail.length >= Math.min(count, messages.length), 'the tail holds the messages asked for');
    deepStrictEqual(tail, messages.slice(messages.length - tail.length), 'the tail is the end');
  }
  const loading = new SessionLoading(text, 'fuzz.jsonl');
  let steps = 0;
  while (!loading.step(0)) ok(++steps < 1_000_000, 'reading in steps ends');
  const stepped = loading.finish();
  deepStrictEqual(stepped.messages, loaded.messages, 'stepped and whole reads agree');
  deepStrictEqual(stepped.warnings, loaded.warnings, 'stepped and whole reads warn alike');
}
