// Joins a provider base URL and an API path.
import { redactUrl } from './redact.js';

/**
 * `<base>/v1/<path>`, whether or not `base` already ends in `/v1` or in slashes.
 * Contract: pure; never throws.
 */
export function apiUrl(base: string, path: string): string {
  let root = base.trim().replace(/\/+$/, '');
  if (/\/v1$/i.test(root)) root = root.slice(0, -3).replace(/\/+$/, '');
  return `${root}/v1/${path.replace(/^\/+/, '')}`;
}

/**
 * Whether `value` can be a provider base URL: an absolute http:// or https:// URL with a host,
 * without spaces, a query or a fragment (apiUrl appends the API path to it).
 * Contract: pure; never throws.
 */
export function isBaseUrl(value: string): boolean {
  const text = value.trim();
  if (text === '' || /\s/.test(text) || !URL.canParse(text)) return false;
  const url = new URL(text);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.search === '' &&
    url.hash === '' &&
    !text.includes('?') &&
    !text.includes('#')
  );
}

/**
 * Whether `value` (a base URL) names this machine: `localhost`, 127.0.0.0/8, `[::1]`, or the
 * unspecified addresses 0.0.0.0 and `[::]` that servers print and that connect locally. A name
 * that merely resolves to a loopback address is not looked up, so it does not count.
 * Contract: pure; never throws; false for anything that is not a URL.
 */
export function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value.trim())) return false;
  const host = new URL(value.trim()).hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]' || host === '[::]' || host === '0.0.0.0') {
    return true;
  }
  if (/^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * A base URL as messages may show it: without the user name, the password or token-like query
 * values (util/redact.ts).
 * Contract: pure; never throws; a value that is not a URL is returned as `(invalid URL)`.
 */
export function displayBaseUrl(value: string): string {
  if (!URL.canParse(value.trim())) return '(invalid URL)';
  return redactUrl(new URL(value.trim()).href.replace(/\/$/, ''));
}
