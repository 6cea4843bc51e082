// `--ext-url URL`: a remote extension named on the command line, as a discovery entry with a
// manifest of its own making (its name from the URL; see nameFromUrl).
import type { DiscoveredExtension } from './discovery.js';
import type { Manifest } from './manifest.js';
import {
  checkUrl,
  DEFAULT_TOKEN_ENV,
  displayUrl,
  kindOfUrl,
  nameFromUrl,
  secretVariableProblem,
  type RemoteConfig,
} from './remote-config.js';

/**
 * The entry for `url`; `tokenEnv` from `--ext-token-env` (must be set), else ZOT_EXT_TOKEN (used
 * when set). Contract: never throws; a bad URL is an error entry naming the flag.
 */
export function urlEntry(url: string, tokenEnv: string | undefined): DiscoveredExtension {
  const shown = displayUrl(url);
  const kind = kindOfUrl(url);
  const secret = tokenEnv === undefined ? undefined : secretVariableProblem(tokenEnv);
  const problem = secret
    ? `--ext-token-env ${tokenEnv}: ${secret}`
    : kind === undefined
      ? `--ext-url ${shown}: expected a ws://, wss://, http:// or https:// URL`
      : typeof checkUrl(url, kind) === 'string'
        ? `--ext-url: ${checkUrl(url, kind) as string}`
        : undefined;
  if (problem || kind === undefined)
    return { scope: 'flag', dir: shown, status: 'error', error: problem, warnings: [] };
  const remote: RemoteConfig = {
    type: kind,
    url,
    headers: {},
    tokenEnv: tokenEnv ?? DEFAULT_TOKEN_ENV,
    ...(tokenEnv === undefined ? { tokenOptional: true } : {}),
  };
  const manifest: Manifest = {
    name: nameFromUrl(url),
    args: [],
    skills: [],
    enabled: true,
    dir: shown,
    manifestPath: shown,
    kind: 'remote',
    interceptFailure: 'allow',
    restart: 'on-failure',
    registrationInputs: [],
    remote,
  };
  return { scope: 'flag', dir: shown, status: 'load', manifest, warnings: [] };
}
