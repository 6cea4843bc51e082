// Credentials out of messages that quote a URL: a proxy setting, a base URL, a git URL, a server's
// error text. `http://alice:S3CRET@proxy` becomes `http://***@proxy`, `?key=abc` becomes
// `?key=***`. Every message that can quote a URL goes through here before anyone sees it (events,
// stderr, logs): zot cannot know which URLs carry secrets, so it hides the places that can.

const HIDDEN = '***';

/** Query parameters that carry credentials by name: key, api_key, token, access_token, sig ... */
const SECRET_PARAMETER =
  /(?:key|token|secret|passw|pwd|credential|auth|signature|session)|^(?:sig|code|pass|jwt)$/i;

/** A URL in free text: a scheme, `://`, and everything up to white space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** `name=value` pairs of a query string (or fragment) with the secret values hidden. */
function redactQuery(query: string): string {
  return query.replace(/([^?#&;=]+)=([^&;#]*)/g, (pair, name: string, value: string) =>
    value !== '' && SECRET_PARAMETER.test(decodeSafely(name)) ? `${name}=${HIDDEN}` : pair,
  );
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `url` with its user information (`user:password@`) and secret query values hidden. Works on
 * text that does not parse as a URL as well (that is when it ends up in an error message): the
 * user information is whatever precedes the last `@` of the authority, with or without a scheme.
 * Contract: pure; never throws.
 */
export function redactUrl(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const queryAt = rest.search(/[?#]/);
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : redactQuery(rest.slice(queryAt));
  // The authority ends at the first `/`; a password may hold `@`, so its last `@` ends the
  // user information.
  const slash = beforeQuery.indexOf('/');
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  let at = authority.lastIndexOf('@');
  if (at < 0) {
    // A `/` in a password cuts the authority short (`user:pa/ss@host`): a `:` followed by
    // something other than a port, and an `@` after the `/`, is that; hide up to the last `@`.
    const colon = authority.indexOf(':');
    const later = beforeQuery.lastIndexOf('@');
    if (colon >= 0 && !/^\d*$/.test(authority.slice(colon + 1)) && later > slash) at = later;
  }
  const shown = at < 0 ? beforeQuery : `${HIDDEN}@${beforeQuery.slice(at + 1)}`;
  return `${scheme}${shown}${query}`;
}

/**
 * `text` with every URL in it redacted (see redactUrl): for messages from elsewhere (a server's
 * error body, git's stderr) that may quote one. Contract: pure; never throws.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}
