// Incremental Server-Sent Events parser over decoded response text.

export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Splits decoded text into SSE events, across any chunk boundaries.
 * Contract: `push` returns the events completed by the text so far, in order; never throws.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private dataLength = 0;
  private event: string | undefined;
  /** The previous chunk ended in CR, so a leading LF belongs to that line break. */
  private pendingCr = false;
  private started = false;

  push(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    if (chunk.length > 0) this.pendingCr = false;
    const breaks = /\r\n|\r|\n/g;
    let start = 0;
    for (let m = breaks.exec(chunk); m; m = breaks.exec(chunk)) {
      this.line(this.buffer + chunk.slice(start, m.index), out);
      this.buffer = '';
      start = m.index + m[0].length;
      if (m[0] === '\r' && start === chunk.length) this.pendingCr = true;
    }
    this.buffer += chunk.slice(start);
    return out;
  }

  /** Characters held for the event not yet complete (its data lines and a partial line). */
  get pendingLength(): number {
    return this.buffer.length + this.dataLength;
  }

  /** Flushes a last line and a last event that lack their line breaks (lenient, unlike the spec). */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.buffer.length > 0) this.line(this.buffer, out);
    this.buffer = '';
    this.line('', out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        const ev: SseEvent = { data: this.data.join('\n') };
        if (this.event !== undefined) ev.event = this.event;
        out.push(ev);
      }
      this.data = [];
      this.dataLength = 0;
      this.event = undefined;
      return;
    }
    if (line.startsWith(':')) return; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataLength += value.length;
    } else if (field === 'event') this.event = value;
  }
}
