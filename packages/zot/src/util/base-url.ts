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
