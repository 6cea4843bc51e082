// What a project extension's runtime would load from the repository that its trust cannot pin:
// the program itself found on PATH inside the repository (an activated virtual environment's
// python with its site-packages and .pth files, a node_modules/.bin), or NODE_PATH / PYTHONPATH
// entries there (relative ones resolve against the extension directory, its working directory).
// Such a start is refused, naming the path, rather than hashed: the review could not show that
// code, and hashing a whole virtual environment or source tree at every start would pin far
// more than the extension and change with every install.
import { delimiter, resolve } from 'node:path';
import { realPathOr } from '../util/real-path.js';
import type { DiscoveredExtension } from './discovery.js';
import { isInside } from './manifest.js';
import { trustBoundary } from './trust-hash.js';

/** Search paths from the environment that Node and Python read modules from. */
const MODULE_PATH_VARIABLES = ['NODE_PATH', 'PYTHONPATH'] as const;

/**
 * Why this project extension may not start with `command` (the resolved program) and `env`, or
 * undefined. Contract: never throws; global and `--ext` entries are never refused here.
 */
export function projectRuntimeProblem(
  entry: DiscoveredExtension,
  command: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (entry.scope !== 'project' || entry.projectRoot === undefined || !entry.manifest)
    return undefined;
  const dir = realPathOr(entry.dir);
  const boundary = trustBoundary(entry.projectRoot);
  const unpinned = (path: string) =>
    [path, realPathOr(path)].some((p) => isInside(boundary, p) && !isInside(dir, p));
  const { exec, manifestPath } = entry.manifest;
  const where = `inside ${boundary}, which trust does not pin for ${entry.dir}`;
  if (exec !== undefined && !/[\\/]/.test(exec) && unpinned(command)) {
    return (
      `${manifestPath}: "exec" ${JSON.stringify(exec)} is found on PATH at ${command}, ${where} ` +
      `(an activated virtual environment or a node_modules/.bin on PATH?); refused: take that ` +
      `directory off PATH for zot, or run the extension from a program outside the repository`
    );
  }
  for (const name of MODULE_PATH_VARIABLES) {
    for (const item of (env[name] ?? '').split(delimiter)) {
      if (item === '') continue;
      const path = resolve(dir, item);
      if (!unpinned(path)) continue;
      return (
        `${name} holds ${JSON.stringify(item)}, which is ${path}, ${where}; modules there would ` +
        `load unreviewed, so ${entry.manifest.name} was not started: take it out of ${name} ` +
        `for zot, or move those modules into the extension directory`
      );
    }
  }
  return undefined;
}
