// Reading the event stream of an HTTP extension: `id: N` / `data: <frame>` events, keep-alive
// comments and a final `event: end`. Bytes are split on LF (a trailing CR dropped) by the
// protocol's splitter, so a data line has the frame bounds of a stdio line: one over 32 MiB is
// counted and dropped, one that is not valid UTF-8 is reported, never decoded with U+FFFD.
import { isUtf8 } from 'node:buffer';
import { MAX_FRAME_BYTES } from '@zot/protocol';
import { LineSplitter } from '@zot/protocol/jsonl';

/** What one data line of an event holds, as the transport's handlers take it. */
export type EventItem =
  | { kind: 'line'; text: string }
  | { kind: 'oversize'; bytes: number }
  | { kind: 'invalid'; length: number; bytes: Buffer };

export interface SseHandlers {
  /** A complete event: its id (undefined: none given) and its data lines in order. */
  onEvent(id: number | undefined, items: EventItem[]): void;
  /** The server's `event: end`: the session is over by its choice. */
  onEnd(): void;
  /** A line that is not an event field (logged, dropped). */
  onGarbage(what: string): void;
  /** The event being read holds more than MAX_EVENT_BYTES: the stream cannot be trusted. */
  onOverflow(bytes: number): void;
}

/** Most bytes of data one event may hold before the stream is dropped (two frames' worth). */
export const MAX_EVENT_BYTES = 2 * MAX_FRAME_BYTES;
const DATA = 'data:';
const ID_SPACE_BYTES = Buffer.from('id: ', 'latin1');
const DATA_SPACE_BYTES = Buffer.from('data: ', 'latin1');

/** Whether `chunk` holds `bytes` at `start`. */
function bytesAre(chunk: Buffer, start: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (chunk[start + i] !== bytes[i]) return false;
  return true;
}

/** Contract: bounded memory (one event, at most MAX_EVENT_BYTES); callbacks in stream order. */
export class SseReader {
  private readonly splitter: LineSplitter;
  private items: EventItem[] = [];
  private id: number | undefined;
  private badId: string | undefined;
  private name = '';
  private bytes = 0;
  private overflowed = false;
  /** The last chunk ended a line: the splitter holds nothing. */
  private atLineStart = true;

  constructor(private readonly handlers: SseHandlers) {
    this.splitter = new LineSplitter({
      maxLineBytes: MAX_FRAME_BYTES + DATA.length + 1,
      keepEmptyLines: true,
      onLine: (line) => this.line(line),
      onOversize: (bytes) => this.add({ kind: 'oversize', bytes }, bytes),
      onInvalidUtf8: (length, raw) => this.invalid(length, raw),
    });
  }

  /** Nothing of an event or a line is pending. */
  get betweenEvents(): boolean {
    return (
      this.atLineStart &&
      this.items.length === 0 &&
      this.id === undefined &&
      this.badId === undefined &&
      this.name === ''
    );
  }

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    if (this.betweenEvents && this.wholeEvent(chunk)) return;
    this.atLineStart = chunk.length > 0 ? chunk[chunk.length - 1] === 0x0a : this.atLineStart;
    this.splitter.push(chunk);
  }

  /**
   * A chunk that is exactly one event, `id: N` and one `data: <frame>` line, LF-ended, valid
   * UTF-8, no CR, within the frame limit (a POST's answer, a frame on a quiet stream), read
   * without the splitter, as the splitter would read it. False: not that shape (read as usual).
   * Its fields are checked byte by byte: a text copy of each to compare cost more than the rest.
   */
  private wholeEvent(chunk: Buffer): boolean {
    const length = chunk.length;
    if (length > MAX_FRAME_BYTES || chunk[length - 1] !== 0x0a || chunk[length - 2] !== 0x0a)
      return false;
    if (!bytesAre(chunk, 0, ID_SPACE_BYTES)) return false;
    // 1 to 15 digits (as the splitter path's id pattern), then LF.
    let id = 0;
    let at = ID_SPACE_BYTES.length;
    for (; at < ID_SPACE_BYTES.length + 15; at++) {
      const digit = chunk[at]! - 0x30;
      if (digit < 0 || digit > 9) break;
      id = id * 10 + digit;
    }
    if (at === ID_SPACE_BYTES.length || chunk[at] !== 0x0a) return false;
    const dataStart = at + 1 + DATA_SPACE_BYTES.length;
    if (dataStart >= length - 2 || !bytesAre(chunk, at + 1, DATA_SPACE_BYTES)) return false;
    if (chunk.indexOf(0x0a, dataStart) !== length - 2 || chunk.indexOf(0x0d) !== -1) return false;
    if (!isUtf8(chunk)) return false;
    const text = chunk.toString('utf8', dataStart, length - 2);
    this.handlers.onEvent(id, [{ kind: 'line', text }]);
    return true;
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(DATA)) {
      const text = line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5);
      return this.add({ kind: 'line', text }, text.length);
    }
    if (line.charCodeAt(0) === 0x3a) return; // a comment: keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value =
      colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    if (field === 'id') {
      if (/^\d{1,15}$/.test(value)) this.id = Number(value);
      else this.badId = value.slice(0, 40);
    } else if (field === 'event') this.name = value.slice(0, 40);
    else if (field !== 'retry')
      this.handlers.onGarbage(
        `a line that is not an event field: ${JSON.stringify(line.slice(0, 80))}`,
      );
  }

  private invalid(length: number, raw: Uint8Array): void {
    const prefix = Buffer.from(raw.subarray(0, DATA.length)).toString('latin1');
    if (prefix !== DATA) {
      this.handlers.onGarbage(
        `a line of ${length} bytes that is not valid UTF-8 outside any data field`,
      );
      return;
    }
    const skip = raw[DATA.length] === 0x20 ? DATA.length + 1 : DATA.length;
    const bytes = Buffer.from(raw.subarray(skip));
    this.add({ kind: 'invalid', length: bytes.length, bytes }, bytes.length);
  }

  private add(item: EventItem, bytes: number): void {
    this.bytes += item.kind === 'oversize' ? 0 : bytes;
    if (this.bytes > MAX_EVENT_BYTES) {
      this.overflowed = true;
      this.items = [];
      this.handlers.onOverflow(this.bytes);
      return;
    }
    this.items.push(item);
  }

  private dispatch(): void {
    const { items, id, name, badId } = this;
    this.items = [];
    this.id = undefined;
    this.badId = undefined;
    this.name = '';
    this.bytes = 0;
    if (name === 'end') return this.handlers.onEnd();
    if (items.length === 0) return;
    if (name !== '' && name !== 'message')
      return this.handlers.onGarbage(
        `an event named ${JSON.stringify(name)} (frames come as unnamed events)`,
      );
    if (badId !== undefined)
      return this.handlers.onGarbage(`an event whose id ${JSON.stringify(badId)} is not a number`);
    this.handlers.onEvent(id, items);
  }
}
