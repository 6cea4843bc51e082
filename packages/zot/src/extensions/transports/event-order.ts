// The HTTP transport's events put back in order. An extension's events are numbered once and
// come on two carriers: the event stream, and the answer to the POST in flight (events the
// server sent while handling it). Each carrier is in order, but zot may read one before the
// other, so an event ahead of the next one expected is held until the gap fills. A gap that
// cannot fill any more (the stream skipped ids with no answer to come) means frames were lost.
import type { EventItem } from './sse-reader.js';
import { MAX_EVENT_BYTES } from './sse-reader.js';

/** Most bytes of events held waiting for a gap (an event's own bound). */
const MAX_HELD_BYTES = MAX_EVENT_BYTES;
/** Most events held waiting for a gap: empty ones weigh no bytes, yet each takes memory. */
export const MAX_HELD_EVENTS = 65_536;

/** Where an event came from: the stream, or a POST's answer. */
export type Carrier = 'stream' | 'answer';

export type Accepted = 'delivered' | 'held' | 'duplicate' | { lost: string };

interface Held {
  items: EventItem[];
  carrier: Carrier;
  bytes: number;
}

/** Contract: each id is delivered at most once, in increasing order with no id skipped. */
export class EventOrder {
  /** The last event delivered. */
  lastId = 0;
  private readonly held = new Map<number, Held>();
  private heldBytes = 0;

  constructor(private readonly deliver: (items: EventItem[]) => void) {}

  /**
   * Takes event `id` from `carrier`. `answerDue`: a POST is in flight, so its answer may still
   * bring the events a stream event skipped.
   */
  accept(id: number, items: EventItem[], carrier: Carrier, answerDue: boolean): Accepted {
    if (id <= this.lastId || this.held.has(id)) return 'duplicate';
    if (id === this.lastId + 1) {
      this.lastId = id;
      this.deliver(items);
      if (this.held.size > 0) this.drain();
      return 'delivered';
    }
    // The stream is in order: what it skipped can only be in an answer still to be read.
    if (carrier === 'stream' && !answerDue) return { lost: gap(this.lastId, id) };
    if (this.held.size >= MAX_HELD_EVENTS)
      return { lost: `${gap(this.lastId, id)} (over ${MAX_HELD_EVENTS} events held waiting)` };
    const bytes = itemBytes(items);
    if (this.heldBytes + bytes > MAX_HELD_BYTES)
      return { lost: `${gap(this.lastId, id)} (over ${MAX_HELD_BYTES} bytes held waiting)` };
    this.held.set(id, { items, carrier, bytes });
    this.heldBytes += bytes;
    return 'held';
  }

  /**
   * A POST's answer was read to its end and none is due: a held stream event waits in vain (the
   * stream brought it after the events it skipped could have come). Returns the loss, if any.
   */
  answerRead(): string | undefined {
    if (this.held.size === 0) return undefined;
    for (const [id, event] of this.held)
      if (event.carrier === 'stream') return gap(this.lastId, Math.min(id, ...this.held.keys()));
    return undefined;
  }

  private drain(): void {
    let next: Held | undefined;
    while ((next = this.held.get(this.lastId + 1)) !== undefined) {
      this.held.delete(++this.lastId);
      this.heldBytes -= next.bytes;
      this.deliver(next.items);
    }
  }
}

function gap(lastId: number, id: number): string {
  return `events ${id === lastId + 2 ? `${id - 1}` : `${lastId + 1} to ${id - 1}`} never arrived`;
}

function itemBytes(items: EventItem[]): number {
  let bytes = 0;
  for (const item of items)
    bytes += item.kind === 'line' ? item.text.length : item.kind === 'invalid' ? item.length : 0;
  return bytes;
}
