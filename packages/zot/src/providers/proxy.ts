// Which proxy a request goes through, from the environment, the way curl reads it:
// https_proxy / http_proxy / all_proxy (lowercase first, then uppercase) and no_proxy.
import { nodeNet } from '../util/builtins.js';
import { redactUrl } from '../util/redact.js';

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** The first non-empty value of the lowercase, then the uppercase name, and that name. */
function envEntry(env: ProxyEnv, name: string): { key: string; value: string } | undefined {
  for (const key of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[key]?.trim();
    if (value) return { key, value };
  }
  return undefined;
}

const envValue = (env: ProxyEnv, name: string) => envEntry(env, name)?.value;

/**
 * The proxy for `target`, or undefined for a direct connection.
 * Contract: never throws; a proxy value that is not a URL is an error the caller reports
 * (returned as `{ error }`), never a silent direct connection.
 */
export function proxyFor(
  target: URL,
  env: ProxyEnv = process.env,
): { proxy: URL } | { error: string } | undefined {
  const scheme = target.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  const setting = envEntry(env, scheme) ?? envEntry(env, 'all_proxy');
  if (!setting) return undefined;
  const raw = setting.value;
  if (bypassesProxy(target, envValue(env, 'no_proxy') ?? '')) return undefined;
  // curl: a proxy without a scheme is an HTTP proxy.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let proxy: URL;
  try {
    proxy = new URL(withScheme);
  } catch {
    // Quoted without its password: this message reaches events, logs and the terminal.
    return {
      error: `the proxy setting ${setting.key}=${JSON.stringify(redactUrl(raw))} is not a URL`,
    };
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    return {
      error:
        `proxy scheme ${proxy.protocol.slice(0, -1)} (in ${setting.key}) is not supported ` +
        `(http, https)`,
    };
  }
  return { proxy };
}

/** The proxy's port, with curl's defaults (1080 for http://, 443 for https://). */
export function proxyPort(proxy: URL): number {
  if (proxy.port) return Number(proxy.port);
  return proxy.protocol === 'https:' ? 443 : 1080;
}

/** `Proxy-Authorization` for credentials in the proxy URL, if any. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The target's port, with the scheme's default. */
export function targetPort(target: URL): number {
  if (target.port) return Number(target.port);
  return target.protocol === 'https:' ? 443 : 80;
}

/** A host name without IPv6 brackets and a trailing dot, lowercased. */
function bareHost(host: string): string {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name;
}

/** Splits a no_proxy entry into host and optional port (`host:port`, `[v6]:port`, bare v6). */
function splitEntry(entry: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    const host = bracketed[1] ?? '';
    return bracketed[2] ? { host, port: Number(bracketed[2]) } : { host };
  }
  const colon = entry.lastIndexOf(':');
  // More than one colon without brackets: a bare IPv6 address (maybe with a /prefix).
  if (colon > 0 && entry.indexOf(':') === colon && /^\d+$/.test(entry.slice(colon + 1))) {
    return { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
  }
  return { host: entry };
}

/**
 * Whether `no_proxy` exempts `target`, as curl reads it: entries separated by commas (or
 * white space); `*` matches every host; a name matches itself and its subdomains, with or
 * without a leading dot; an IP address matches itself, and in CIDR notation its network;
 * an entry with `:port` matches only that port (curl ignores ports; Go, Python and wget
 * honour them, and an entry that names one must not widen to every port).
 */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = bareHost(target.hostname);
  const port = targetPort(target);
  const hostIp = nodeNet().isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    const entry = splitEntry(raw);
    if (entry.port !== undefined && entry.port !== port) continue;
    const slash = entry.host.indexOf('/');
    if (hostIp !== 0) {
      if (ipMatches(host, hostIp, entry.host, slash)) return true;
      continue;
    }
    if (slash >= 0) continue; // a CIDR entry never matches a name
    let name = bareHost(entry.host);
    if (name.startsWith('.')) name = name.slice(1);
    if (name === '') continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

function ipMatches(host: string, family: number, entry: string, slash: number): boolean {
  const address = bareHost(slash >= 0 ? entry.slice(0, slash) : entry);
  const entryFamily = nodeNet().isIP(address);
  if (entryFamily !== family) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (slash < 0) {
    const list = new (nodeNet().BlockList)();
    list.addAddress(address, type);
    return list.check(host, type);
  }
  const prefix = Number(entry.slice(slash + 1));
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) return false;
  const list = new (nodeNet().BlockList)();
  list.addSubnet(address, prefix, type);
  return list.check(host, type);
}
