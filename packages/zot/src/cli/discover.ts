// The extensions this run finds (--ext, project, installed), read as the host reads them, for
// what the run takes from them without starting any: skill bundles and themes.
import type { ZotPaths } from '../config/paths.js';
import type { DiscoveredExtension } from '../ext-setup/discovery.js';
import type { CliOptions } from './args.js';

/** Contract: never throws for bad content (see discoverExtensions); loads discovery lazily. */
export async function discoverForRun(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
): Promise<DiscoveredExtension[]> {
  const [{ discoverExtensions }, { storedReplacement }] = await Promise.all([
    import('../ext-setup/discovery.js'),
    import('../ext-setup/trust.js'),
  ]);
  return discoverExtensions({
    cwd,
    zotHome: paths.home,
    extPaths: options.extPaths,
    noExt: options.noExt,
    replaces: storedReplacement(paths),
  }).entries;
}
