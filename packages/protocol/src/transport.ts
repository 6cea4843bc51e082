// The transport contract shared by the host and the SDKs: frames out, lines in, and how the
// link ends. Child-process stdio lives in the host; the in-memory linked pair
// (in-memory-transport.ts) lets either side be tested without processes.

/** How the other side went away: a process exit (code or signal), or a severed link. */
export interface TransportExit {
  code: number | null;
  signal: string | null;
  /** Set when the other side could not be started at all (e.g. spawn failed). */
  spawnError?: string;
  /** A network link (a remote extension): how it ended or why it never opened. */
  disconnected?: string;
}

/**
 * What a transport reports. Lines are raw: decoding and validation belong to the receiver,
 * which logs and drops what it cannot use (design D12).
 */
export interface TransportHandlers {
  /** One line, without its LF (and without one trailing CR). */
  onLine(line: string): void;
  /** A line over the frame limit, counted but not delivered. */
  onOversize?(byteLength: number): void;
  /** A line that is not UTF-8 (not delivered to onLine); `bytes` is valid during the call. */
  onInvalidUtf8?(byteLength: number, bytes: Uint8Array): void;
  /** The other side stopped writing (it may still be alive). At most once. */
  onOutputEnd?(): void;
  /** The other side is gone. Exactly once. */
  onExit(info: TransportExit): void;
}

export interface SendOptions {
  /**
   * A frame that may be refused (send returns false) while the other side is not reading
   * and too much already waits for it, so that a stuck reader cannot grow our memory.
   */
  droppable?: boolean;
}

/**
 * One end of a connection that writes frames of type `Out` and reads lines.
 * Contract: handlers never throw into the transport; frames are written in order; onExit
 * fires exactly once; while reading is paused no line is delivered (the other side's writes
 * are held back, not dropped); sends after the end are dropped silently.
 */
export interface Transport<Out extends { readonly type: string }> {
  start(handlers: TransportHandlers): void;
  /** Queues one frame; false only when a droppable frame was refused (see SendOptions). */
  send(frame: Out, options?: SendOptions): boolean;
  /** Pauses or resumes delivery of incoming lines. Contract: safe to call from a handler. */
  setReading(on: boolean): void;
  /** Ends our output once queued frames are written: the other side reads end of input. */
  close(): void;
  /** Ends the link by force (a process is killed). Resolves once the other side is gone. */
  terminate(): Promise<void>;
}
