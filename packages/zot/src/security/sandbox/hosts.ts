// Matching a request's host and port against sandbox.network's list, and the words of a refusal.

/** The header whose value the forwarder inside the sandbox prints on the command's stderr. */
export const DENIED_HEADER = 'x-zot-sandbox-denied';

/** The text of a refusal, as the proxy answers it and the tool result repeats it. */
export function denialText(host: string, port: number, setting: string): string {
  return (
    `zot sandbox: network access to ${host}:${port} is blocked: it is not in ${setting}. ` +
    `Add "${host}" or "${host}:${port}" to that list to allow it.`
  );
}

/** Host and port of `host:port` (IPv6 in brackets); undefined when it is not that. */
export function splitHostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: normalizeHost(match[1]!), port };
}

/** Lower case, no trailing dot. */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * Whether `host:port` is allowed: an entry `name` allows every port of that name, `name:port`
 * that port only, `*.name` (with or without a port) every name below `name` (not `name` itself).
 */
export function hostAllowed(allow: readonly string[], host: string, port: number): boolean {
  const name = normalizeHost(host);
  for (const entry of allow) {
    const portMatch = /:(\d+)$/.exec(entry);
    const entryHost = portMatch && !entry.endsWith(']') ? entry.slice(0, portMatch.index) : entry;
    if (portMatch && !entry.endsWith(']') && Number(portMatch[1]) !== port) continue;
    if (entryHost.startsWith('*.')) {
      if (name.endsWith(entryHost.slice(1)) && name.length > entryHost.length - 1) return true;
    } else if (entryHost === name) return true;
  }
  return false;
}
