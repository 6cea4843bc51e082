// The one place the session fuzz touches the loader: the pure parser of session file text.
import { loadSessionText, type LoadedSession } from '../../src/session/load.js';

/**
 * Parses the text of a session file. Contract under test: never throws, and what it returns
 * is safe for the code after it (serialising the transcript, as every request does).
 */
export function parseSessionText(text: string): LoadedSession {
  const loaded = loadSessionText(text, 'fuzz.jsonl');
  JSON.stringify(loaded.messages);
  return loaded;
}
