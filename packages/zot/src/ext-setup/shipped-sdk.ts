// The environment of an extension whose manifest says `"sdk": "python"`: zot's own SDK
// (sdk-python/zot_sdk in zot's package directory) first on PYTHONPATH, so `import zot_sdk`
// finds the SDK of the zot that runs it, with no copy in the extension. That SDK is part of
// zot's installation and is trusted like zot itself (docs/extensions.md, "Security model").
import { delimiter, dirname } from 'node:path';
import { shippedPythonSdk, type Shipped } from '../config/shipped.js';
import type { Manifest } from './manifest.js';

/** What zot provides beyond the extension's own files: a scoped one's sandbox must hold it. */
export interface ProvidedByZot {
  /** Directories the extension reads (mounted read-only in its sandbox). */
  readOnly: string[];
  /** Variables zot sets for it (passed into its sandbox). */
  env: string[];
}

export type SdkEnvironment =
  | { ok: true; env: NodeJS.ProcessEnv; provided: ProvidedByZot }
  | { ok: false; error: string };

/**
 * `env` with the declared SDK on the module path, or why it cannot be (the extension is then
 * not started). A vendored zot_sdk/ beside the script still wins: Python searches the script's
 * directory before PYTHONPATH. A `scoped` extension gets the SDK's directory alone (the other
 * entries would name paths its sandbox does not hold). Contract: never throws; without `sdk`,
 * `env` unchanged.
 */
export function withShippedSdk(
  manifest: Pick<Manifest, 'sdk' | 'manifestPath'>,
  env: NodeJS.ProcessEnv,
  options: { scoped?: boolean; locate?: () => Shipped } = {},
): SdkEnvironment {
  if (manifest.sdk === undefined) return { ok: true, env, provided: { readOnly: [], env: [] } };
  const sdk = (options.locate ?? shippedPythonSdk)();
  if (!sdk.ok) {
    return {
      ok: false,
      error: `${manifest.manifestPath}: "sdk": "python" asks for zot's Python SDK, but ${sdk.error}`,
    };
  }
  const dir = dirname(sdk.path);
  const rest = options.scoped ? undefined : env.PYTHONPATH;
  const path = rest ? `${dir}${delimiter}${rest}` : dir;
  return {
    ok: true,
    env: { ...env, PYTHONPATH: path },
    provided: { readOnly: [sdk.path], env: ['PYTHONPATH'] },
  };
}
