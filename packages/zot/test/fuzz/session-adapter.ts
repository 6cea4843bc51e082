// The one place the session fuzz touches the loader. Today loadSession reads a file, so the text
// goes through a temporary file; when session/store.ts exports its pure, never-throwing parser
// of session file text, call that here instead and drop the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSession, type LoadedSession } from '../../src/session/store.js';

let dir: string | undefined;

/** Parses the text of a session file. Contract under test: never throws. */
export function parseSessionText(text: string): LoadedSession {
  if (dir === undefined) {
    const created = mkdtempSync(join(tmpdir(), 'zot-fuzz-session-'));
    process.once('exit', () => rmSync(created, { recursive: true, force: true }));
    dir = created;
  }
  const path = join(dir, 'session.jsonl');
  writeFileSync(path, text);
  return loadSession(path);
}
