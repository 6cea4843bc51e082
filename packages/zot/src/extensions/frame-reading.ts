// Reading one line of an extension's stdout into a frame, or into what zot says about it: the
// first line must be a hello; later, a frame of a protocol version the extension did not
// negotiate is refused, an unknown or malformed one dropped, and a broken reply that still
// names its request fails that request now rather than at its timeout. What a process reports
// waits at an ArrivalGate until the checks its frames need are loaded.
import {
  decodeFromExtension,
  frameVersion,
  type FrameFromExtension,
  type ProtocolVersion,
  type TransportHandlers,
} from '@zot/protocol';
import { isReplyType, type ReplyType } from './peer.js';

/** What a transport reports, every kind of it handled. */
export type GatedHandlers = Required<TransportHandlers>;

export type HelloFrame = Extract<FrameFromExtension, { type: 'hello' }>;

/** A reply that could not be read but names its request. */
export interface BrokenReply {
  id: string;
  type: ReplyType;
  message: string;
}

export type LineReading =
  | { ok: true; frame: FrameFromExtension }
  | { ok: false; warning: string; brokenReply?: BrokenReply };

/** The start of a line, for log messages. */
export function preview(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** The first line: its hello, or why the load fails. */
export function readFirstLine(
  line: string,
): { ok: true; frame: HelloFrame } | { ok: false; reason: string } {
  const decoded = decodeFromExtension(line);
  if (decoded.ok && decoded.frame.type === 'hello') return { ok: true, frame: decoded.frame };
  const why = decoded.ok ? `a ${decoded.frame.type} frame` : decoded.error;
  return {
    ok: false,
    reason: `the first line must be a hello frame; got ${why}: ${preview(line)}`,
  };
}

/** A line after the hello, read for an extension speaking `version`. */
export function readLine(line: string, version: ProtocolVersion): LineReading {
  const decoded = decodeFromExtension(line);
  if (decoded.ok) {
    const refusal = versionRefusal(decoded.frame.type, version);
    return refusal === undefined
      ? { ok: true, frame: decoded.frame }
      : { ok: false, warning: refusal };
  }
  if (decoded.kind === 'unknown_type') {
    const refusal = versionRefusal(decoded.type ?? '', version);
    if (refusal !== undefined) return { ok: false, warning: refusal };
  }
  const warning =
    decoded.kind === 'unknown_type'
      ? `ignored unknown frame type "${decoded.type}"`
      : `dropped a malformed line: ${decoded.error}: ${preview(line)}`;
  if (decoded.id === undefined || !isReplyType(decoded.type)) return { ok: false, warning };
  const message = `malformed ${decoded.type}: ${decoded.error}`;
  return { ok: false, warning, brokenReply: { id: decoded.id, type: decoded.type, message } };
}

/** Whether a line read while shutting down is the shutdown_ack (all else is ignored). */
export function isShutdownAck(line: string): boolean {
  if (!line.includes('shutdown_ack')) return false;
  const ack = decodeFromExtension(line);
  return ack.ok && ack.frame.type === 'shutdown_ack';
}

/** The reply a line that is not valid UTF-8 names, read leniently, if it names one. */
export function brokenReplyIn(bytes: Uint8Array): BrokenReply | undefined {
  const lenient = decodeFromExtension(new TextDecoder().decode(bytes));
  const frame = lenient.ok ? (lenient.frame as { type: string; id?: unknown }) : lenient;
  if (typeof frame.id !== 'string' || !isReplyType(frame.type)) return undefined;
  return {
    id: frame.id,
    type: frame.type,
    message: `malformed ${frame.type}: the line is not valid UTF-8`,
  };
}

/**
 * Why a frame of `type` is refused from an extension speaking `version` (named in its log, never
 * acted on), or undefined when its version was negotiated.
 */
function versionRefusal(type: string, version: ProtocolVersion): string | undefined {
  const needs = frameVersion({ type });
  if (needs <= version) return undefined;
  return `refused a ${type} frame: it is a protocol version ${needs} frame and this extension's hello did not ask for version ${needs} (send "protocol_version": ${needs} in hello)`;
}

/**
 * Holds what an extension's transport reports (lines, their end, its exit) until `ready`
 * settles, then runs it in arrival order: no line is read before the checks it needs are
 * loaded (the tool-schema check is loaded at spawn, not at zot's start), and no exit overtakes
 * a line written before it. What is held is what the pipe delivers while a module loads (a
 * microtask in the bundle). When loading fails, `failed` is told first.
 */
export class ArrivalGate {
  private held: Array<() => void> | undefined = [];

  constructor(ready: Promise<void>, failed: (error: unknown) => void) {
    ready.then(
      () => this.open(),
      (error: unknown) => {
        failed(error);
        this.open();
      },
    );
  }

  /** `handlers`, each event run through the gate (invalid bytes copied, valid during the call only). */
  handlers(handlers: GatedHandlers): GatedHandlers {
    return {
      onLine: (line) => this.run(() => handlers.onLine(line)),
      onOversize: (bytes) => this.run(() => handlers.onOversize(bytes)),
      onInvalidUtf8: (length, bytes) => {
        const copy = Uint8Array.from(bytes);
        this.run(() => handlers.onInvalidUtf8(length, copy));
      },
      onOutputEnd: () => this.run(() => handlers.onOutputEnd()),
      onExit: (info) => this.run(() => handlers.onExit(info)),
    };
  }

  /** Runs `event` now, or in order once the gate opens. */
  run(event: () => void): void {
    if (this.held) this.held.push(event);
    else event();
  }

  private open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) event();
  }
}
