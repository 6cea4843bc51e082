// The start of the conversation: `hello` first and well formed, `hello_ack`, the registrations,
// then `ready` within the host's deadlines (design D6, D8).
import { negotiateProtocolVersion } from '@zot/protocol';
import { checkRegistrations, type Kit } from './kit.js';
import { watchV2 } from './v2-phases.js';

/** Whether the conversation can go on after the handshake. */
export type HandshakeResult = 'ready' | 'continue' | 'stop';

/** Checks `hello`; sends `hello_ack`. Returns false when nothing else can be checked. */
export async function hello(kit: Kit): Promise<boolean> {
  const { child, checks, timeouts } = kit;
  const arrived = await child.waitUntil(() => child.first !== undefined, timeouts.helloMs);
  // A connection that never opened times out at the same deadline, started a moment later
  // (after the proxy lookup): its verdict says more than "no hello", so it is given the kill
  // grace to come.
  if (kit.remote && !arrived && !child.exit)
    await child.waitUntil(() => child.exit !== undefined, timeouts.killGraceMs);
  const first = child.first;
  if (kit.remote && !connected(kit, first !== undefined)) return false;
  if (!arrived || !first) {
    const message = child.ended
      ? `the extension ${child.exitText} before sending hello`
      : kit.remote
        ? `no hello within ${timeouts.helloMs} ms (zot's hello timeout); send it as soon as the connection opens`
        : `no hello within ${timeouts.helloMs} ms (zot's hello timeout); flush stdout after each frame`;
    checks.add({ check: 'hello', status: 'fail', message });
    return false;
  }
  const frame = first.frame;
  if (frame?.type !== 'hello') {
    const got = frame ? `a ${frame.type} frame` : first.problem;
    checks.add({
      check: 'hello',
      status: 'fail',
      message: `the first line must be a hello frame; got ${got} (zot fails the load)`,
      ...(first.text !== '' ? { frame: first.text } : {}),
    });
    return false;
  }
  // A remote extension has no manifest: it is what its hello says it is.
  if (kit.remote)
    kit.manifest = {
      ...kit.manifest,
      name: frame.name,
      ...(frame.version !== undefined ? { version: frame.version } : {}),
    };
  const { manifest } = kit;
  kit.protocolVersion = negotiateProtocolVersion(frame.protocol_version);
  if (kit.protocolVersion >= 2) kit.v2 = watchV2(kit);
  child.send({
    type: 'hello_ack',
    protocol_version: kit.protocolVersion,
    zot_version: kit.host.zot_version,
    provider: kit.host.provider,
    model: kit.host.model,
    cwd: kit.host.cwd,
    extension_dir: manifest.dir,
    data_dir: kit.host.data_dir,
  });
  const version =
    (frame.version !== undefined ? ` ${frame.version}` : '') + `, protocol ${kit.protocolVersion}`;
  const after = `${child.helloAt! - child.startedAtMs} ms after ${kit.remote ? 'connecting' : 'start'}`;
  if (frame.name !== manifest.name) {
    checks.add({
      check: 'hello',
      status: 'warn',
      message: `hello names "${frame.name}" but the manifest says "${manifest.name}"; zot uses "${manifest.name}"`,
      frame: first.text,
    });
  } else
    checks.add({ check: 'hello', status: 'pass', message: `"${frame.name}"${version}, ${after}` });
  return true;
}

/**
 * The `connect` check of a remote extension: a connection that could not be made (nothing
 * listening, TLS, a refused token: the host's own words for each) fails it, and nothing else can
 * be checked. Once a line came, it was connected. Returns whether the run goes on.
 */
function connected(kit: Kit, heard: boolean): boolean {
  const { child, checks } = kit;
  const url = kit.remote!.url;
  const refused = child.exit?.spawnError;
  if (!heard && refused !== undefined) {
    checks.add({ check: 'connect', status: 'fail', message: `${url}: ${refused}` });
    return false;
  }
  if (heard || child.exit)
    checks.add({
      check: 'connect',
      status: 'pass',
      message: `${url} over ${kit.remote!.transport === 'http' ? 'HTTP' : 'WebSocket'}`,
    });
  return true;
}

/**
 * Waits for `ready` as the host would: an extension that registered and then stayed quiet for
 * the auto-ready period would have been auto-readied (a warning when `ready` comes later); no
 * `ready` at all by the ready deadline fails. Registrations are checked once this is settled.
 */
export async function ready(kit: Kit): Promise<HandshakeResult> {
  const { child, checks, timeouts } = kit;
  const helloAt = child.helloAt!;
  let autoReadyAt: number | undefined;
  // The host's auto-ready timer: restarted by every registration while waiting for `ready`.
  const quietSince = () => child.lastRegistrationAt;
  const watchQuiet = async () => {
    while (child.readyAt === undefined && !child.ended) {
      const last = quietSince();
      const remaining = helloAt + timeouts.readyMs - Date.now();
      if (remaining <= 0) return;
      if (last !== undefined && Date.now() - last >= timeouts.autoReadyMs) {
        autoReadyAt = last + timeouts.autoReadyMs;
        return;
      }
      const wait = last === undefined ? remaining : last + timeouts.autoReadyMs - Date.now();
      await child.waitUntil(
        () => child.readyAt !== undefined || quietSince() !== last,
        Math.max(1, Math.min(wait, remaining)),
      );
    }
  };
  await Promise.all([
    watchQuiet(),
    child.waitUntil(() => child.readyAt !== undefined, helloAt + timeouts.readyMs - Date.now()),
  ]);
  checkRegistrations(kit);
  const registered = child.registrations.length > 0;
  if (child.readyAt !== undefined) {
    const ms = child.readyAt - helloAt;
    if (autoReadyAt !== undefined && autoReadyAt < child.readyAt) {
      checks.add({
        check: 'ready',
        status: 'warn',
        message:
          `ready came ${ms} ms after hello, but zot would already have auto-readied it ` +
          `${timeouts.autoReadyMs} ms after its last registration; send ready right after registering`,
        frame: child.readyLine!,
        ms,
      });
    } else checks.add({ check: 'ready', status: 'pass', message: `${ms} ms after hello`, ms });
    return 'ready';
  }
  if (child.ended) {
    checks.add({
      check: 'ready',
      status: 'fail',
      message: `the extension ${child.exitText} before sending ready`,
    });
    return 'stop';
  }
  if (registered) {
    checks.add({
      check: 'ready',
      status: 'fail',
      message:
        `no ready within ${timeouts.readyMs} ms of hello; zot auto-readies an extension that ` +
        `registered something (a safety net, logged as a problem), but it must send ready`,
    });
    return 'continue';
  }
  checks.add({
    check: 'ready',
    status: 'fail',
    message: `no ready within ${timeouts.readyMs} ms of hello and nothing registered: zot fails the load`,
  });
  return 'stop';
}
