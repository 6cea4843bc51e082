// Back-pressure from a mode's output to the extensions: while the reader of our output lags,
// the host stops reading extension output instead of queueing it here (docs/extensions.md).
import type { Writable } from 'node:stream';
import type { Session } from '../session/session.js';
import { writeLine } from './io.js';

/**
 * A line writer for `stream` that tells the session's extension host when a write was left
 * queued (write() returned false) and again on 'drain' (or when the stream closes: nothing
 * to wait for then). Contract: never throws; reports each change once; one per session.
 */
export function outputWriter(
  stream: NodeJS.WritableStream,
  session: Pick<Session, 'setOutputBlocked'>,
): (text: string) => void {
  let blocked = false;
  let closed = false;
  const report = (value: boolean) => {
    blocked = value;
    try {
      session.setOutputBlocked(value);
    } catch {
      // The host never throws; a writer must not either.
    }
  };
  stream.on('drain', () => blocked && report(false));
  stream.once('close', () => {
    closed = true;
    if (blocked) report(false);
  });
  return (text) => {
    writeLine(stream, text);
    if (!blocked && !closed && (stream as Partial<Writable>).writableNeedDrain === true)
      report(true);
  };
}
