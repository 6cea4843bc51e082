// The extensions this run finds (--ext, project, installed), read as the host reads them, for
// what the run takes from them without starting any: skill bundles and themes.
import type { ZotPaths } from '../config/paths.js';
import type { DiscoveredExtension } from '../extensions/discovery.js';
import type { CliOptions } from './args.js';

/** Contract: never throws for bad content (see discoverExtensions); loads discovery lazily. */
export async function discoverForRun(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
): Promise<DiscoveredExtension[]> {
  const [{ discoverExtensions }, { storedReplacement }] = await Promise.all([
    import('../extensions/discovery.js'),
    import('../extensions/trust.js'),
  ]);
  return discoverExtensions({
    cwd,
    zotHome: paths.home,
    extPaths: options.extPaths,
    noExt: options.noExt,
    replaces: storedReplacement(paths),
  }).entries;
}
