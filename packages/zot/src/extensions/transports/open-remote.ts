// The one place a remote extension's link is built from its validated config: the host's
// supervisor and `zot ext test --url` / `zot ext list`'s probe connect through the same transports.
import type { ExtensionLog } from '../log.js';
import type { ExtensionTransport } from '../transport.js';
import { HttpTransport } from './http.js';
import { WebSocketTransport, type RemoteSpec } from './websocket.js';

export type { RemoteSpec };

/** A WebSocket or HTTP transport for `spec.config.type`, not yet started. */
export function openRemote(spec: RemoteSpec, log: ExtensionLog): ExtensionTransport {
  return spec.config.type === 'http'
    ? new HttpTransport(spec, log)
    : new WebSocketTransport(spec, log);
}
