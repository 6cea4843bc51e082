// Where the bundle's compiled code is kept between runs (see util/code-cache.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveCacheDir, resolveZotHome } from '../config/paths.js';
import { useCodeCache } from '../util/code-cache.js';

/** The private directory under $ZOT_HOME that holds the key authenticating the cache's files. */
export const KEYS_DIR = 'keys';

/**
 * Compiles the bundle's chunks (beside `entryUrl`, in `chunks/`) with V8 data kept under the
 * cache directory and authenticated with a key in `$ZOT_HOME/keys`; ZOT_CODE_CACHE=0 turns it
 * off. The per-file build has no chunks directory, so there it changes nothing.
 */
export function useBundleCodeCache(entryUrl: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.ZOT_CODE_CACHE === '0') return;
  try {
    const chunks = join(dirname(fileURLToPath(entryUrl)), 'chunks');
    useCodeCache(chunks, {
      cacheDir: join(resolveCacheDir(env), 'code'),
      keyDir: join(resolveZotHome(env), KEYS_DIR),
    });
  } catch {
    // no home directory to find a cache under (os.homedir() throws): run without the cache
  }
}
