// `zot ext list`'s look at each remote extension: a short handshake through the host's own
// transport (the same token, TLS, proxy and loopback rule), up to its hello, then closed. All at
// once, each bounded, so a list with a dead server takes the bound, not a hang.
import type { RemoteConfig } from '../../ext-setup/remote-config.js';
import { prepareRemoteLink } from '../../ext-setup/remote-token.js';
import { ExtensionLog } from '../../extensions/log.js';
import type { ExtensionTimeouts } from '../../extensions/timeouts.js';
import { openRemote } from '../../extensions/transports/open-remote.js';
import type { AgentFor } from '../../extensions/transports/remote-connect.js';
import { describeExit } from '../../extensions/transport.js';

/** What the probe found; `reason` says why for every state but `connected`. */
export interface Connection {
  state: 'connected' | 'token refused' | 'TLS error' | 'unreachable' | 'refused' | 'not probed';
  reason?: string;
}

export interface ProbeTarget {
  name: string;
  config: RemoteConfig;
  /** Entries keyed by name apply (not for a project's manifest). */
  byName: boolean;
}

export interface ProbeOptions {
  env: NodeJS.ProcessEnv;
  authPath: string;
  configPath: string;
  insecure: boolean;
  agent?: AgentFor;
  timeouts: ExtensionTimeouts;
}

/** The probe's bound: half the hello timeout (ZOT_EXT_HELLO_TIMEOUT_MS, 10 s by default). */
export function probeBoundMs(timeouts: ExtensionTimeouts): number {
  return Math.max(1, Math.floor(timeouts.helloMs / 2));
}

/** A log that keeps nothing: a probe is not a run, and writes no extension log. */
class NoLog extends ExtensionLog {
  constructor() {
    super('');
  }
  override write(): void {}
}

/**
 * The state a connection failure amounts to, from the start of the host's own words for it
 * (remote-connect.ts, http-wire.ts): what a server said comes later in them and cannot pass
 * for another state.
 */
function classify(reason: string): Connection['state'] {
  if (/^\S+ (refused the token from \S+|wants a token) \(HTTP 40[13]\)/.test(reason))
    return 'token refused';
  if (/^(the TLS certificate of |TLS with )/.test(reason)) return 'TLS error';
  return 'unreachable';
}

/** Connects to one remote extension and waits for its hello. Contract: never rejects. */
export async function probeRemote(target: ProbeTarget, options: ProbeOptions): Promise<Connection> {
  const link = prepareRemoteLink(target.name, target.config, {
    insecure: options.insecure,
    env: options.env,
    authPath: options.authPath,
    configPath: options.configPath,
    byName: target.byName,
  });
  if ('problem' in link) return { state: 'refused', reason: link.problem };
  const boundMs = probeBoundMs(options.timeouts);
  const transport = openRemote(
    {
      ...link,
      agent: options.agent,
      connectTimeoutMs: boundMs,
      closeGraceMs: options.timeouts.killGraceMs,
    },
    new NoLog(),
  );
  const found = await new Promise<Connection>((resolve) => {
    const timer = setTimeout(
      () =>
        resolve({
          state: 'unreachable',
          reason: `no hello within ${boundMs} ms (half of zot's hello timeout)`,
        }),
      boundMs,
    );
    const settle = (connection: Connection) => {
      clearTimeout(timer);
      resolve(connection);
    };
    try {
      transport.start({
        onLine: () => settle({ state: 'connected' }),
        onOversize: () => settle({ state: 'connected' }),
        onInvalidUtf8: () => settle({ state: 'connected' }),
        onExit: (info) => {
          const reason = info.spawnError ?? describeExit(info);
          settle({ state: classify(reason), reason });
        },
      });
    } catch (error) {
      settle({ state: 'unreachable', reason: String(error) });
    }
  });
  transport.close();
  await transport.terminate().catch(() => undefined);
  return found;
}
