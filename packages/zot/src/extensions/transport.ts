// The host's end of the link to one extension. The child-process implementation is in
// process-transport.ts; @zot/protocol's in-memory pair fits too (host unit tests).
import type { FrameFromHost, Transport, TransportExit } from '@zot/protocol';

/** Most characters of events queued for one extension before further events are dropped. */
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export type ExitInfo = TransportExit;

/** What a RunningExtension talks through: frames to the extension, lines back. */
export interface ExtensionTransport extends Transport<FrameFromHost> {
  readonly pid?: number | undefined;
  /** Last resort when zot exits: ends the link synchronously. Contract: never throws. */
  terminateNow(): void;
}

export function describeExit(info: ExitInfo): string {
  if (info.disconnected) return info.disconnected;
  if (info.spawnError) return `could not start: ${info.spawnError}`;
  if (info.signal) return `killed by ${info.signal}`;
  return `exited with status ${info.code}`;
}
