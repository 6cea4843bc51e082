// Frames zot sends to one extension: never one of a protocol version it did not negotiate,
// never one past the protocol's size bounds, and events dropped (counted) while it does not
// read its stdin, so that a stuck extension cannot grow zot's memory.
import {
  FRAME_LIMITS,
  frameVersion,
  jsonLimitProblem,
  type AbandonReason,
  type EventFrame,
  type FrameFromHost,
  type ProtocolVersion,
  type RequestFrame,
} from '@zot/protocol';
import { MAX_QUEUED_BYTES, type ExtensionTransport } from './transport.js';

/** A frame named for a log line: its type, and its event when it has one. */
function describeFrame(frame: FrameFromHost): string {
  const event = (frame as { event?: unknown }).event;
  return typeof event === 'string' ? `${frame.type} (${event})` : `a ${frame.type} frame`;
}

export class FrameOutbox {
  private droppedEvents = 0;

  /** `warn`: a protocol problem (log and `doctor`); `log`: a log line only. */
  constructor(
    private readonly transport: ExtensionTransport,
    private readonly protocolVersion: () => ProtocolVersion,
    private readonly warn: (message: string) => void,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Sends a frame, or returns why it was not sent (logged). zot never sends a frame past the
   * protocol's own bounds: the extension would drop it, and a request would wait for nothing.
   */
  send(frame: FrameFromHost): string | undefined {
    const problem = this.unsendable(frame);
    if (problem === undefined) this.transport.send(frame);
    return problem;
  }

  /**
   * Sends a lifecycle event. An extension that stops reading its stdin loses events past the
   * queue bound (counted and logged) instead of growing zot's memory; requests still queue.
   */
  sendEvent(frame: EventFrame): void {
    if (this.unsendable(frame) !== undefined) return;
    if (this.transport.send(frame, { droppable: true })) {
      if (this.droppedEvents > 0) {
        this.log(`delivering events again after dropping ${this.droppedEvents}`);
        this.droppedEvents = 0;
      }
      return;
    }
    if (this.droppedEvents++ === 0)
      this.warn(
        `not reading its stdin: over ${MAX_QUEUED_BYTES / (1024 * 1024)} MiB of events queued; dropping events until it catches up`,
      );
  }

  /**
   * A tool call or command zot stopped waiting for (aborted, timed out, or shut down) is
   * cancelled: a version-2 extension that still `listens` (its process is there and the call
   * still runs) hears `cancel` with its id.
   */
  cancel(frame: RequestFrame, reason: AbandonReason, listens: boolean): void {
    if (frame.type !== 'tool_call' && frame.type !== 'command_invoked') return;
    if (this.protocolVersion() < 2 || !listens) return;
    this.log(`cancel ${frame.type} ${frame.id} (${reason})`);
    this.send({ type: 'cancel', id: frame.id });
  }

  private unsendable(frame: FrameFromHost): string | undefined {
    const version = this.protocolVersion();
    const needs = frameVersion(frame as { type: string; event?: unknown });
    if (needs > version) {
      const what = `not sent: ${describeFrame(frame)} is a protocol version ${needs} frame and this extension speaks version ${version}`;
      this.warn(what);
      return what;
    }
    const problem = jsonLimitProblem(frame, FRAME_LIMITS);
    if (problem === undefined) return undefined;
    const what = `not sent: the ${frame.type} frame would be ${problem} (the protocol's bound)`;
    this.warn(what);
    return what;
  }
}
