// Joins a provider base URL and an API path.

/**
 * `<base>/v1/<path>`, whether or not `base` already ends in `/v1` or in slashes.
 * Contract: pure; never throws.
 */
export function apiUrl(base: string, path: string): string {
  let root = base.trim().replace(/\/+$/, '');
  if (/\/v1$/i.test(root)) root = root.slice(0, -3).replace(/\/+$/, '');
  return `${root}/v1/${path.replace(/^\/+/, '')}`;
}
