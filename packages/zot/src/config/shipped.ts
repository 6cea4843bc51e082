// The files that ship with zot (its SDKs), found in zot's own package directory from the running
// code: the bundle (packages/zot/dist/bundle) and the per-file build both sit below it, in a
// checkout as in an `npm install -g` copy. Nothing outside that directory is ever used.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `name` in the package.json of zot's package directory (the repository root). */
const PACKAGE_NAME = 'zot-agent';

/** Where the Python SDK lies in zot's package directory. */
export const PYTHON_SDK_PATH = 'sdk-python/zot_sdk';
/** Where the TypeScript SDK lies in zot's package directory (its packed build). */
export const TYPESCRIPT_SDK_PATH = 'packages/sdk';

/**
 * zot's package directory: the nearest directory at or above `from` whose package.json is
 * zot's. Contract: never throws; undefined when there is none.
 */
export function zotPackageDir(from: string = import.meta.url): string | undefined {
  for (let dir = dirname(pathOf(from)); ; dir = dirname(dir)) {
    if (isZotPackage(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A module URL or a path, as a path. */
function pathOf(from: string): string {
  return from.startsWith('file:') ? fileURLToPath(from) : from;
}

function isZotPackage(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/** A file or directory that ships with zot, or why it cannot be used. */
export type Shipped = { ok: true; path: string } | { ok: false; error: string };

/**
 * `relative` (e.g. PYTHON_SDK_PATH) in zot's package directory, when `marker` (a file below it)
 * is there. Contract: never throws; the error names what is missing, where, and the fix.
 */
export function shippedPath(
  relative: string,
  marker: string,
  from: string = import.meta.url,
): Shipped {
  const root = zotPackageDir(from);
  if (root === undefined) {
    return {
      ok: false,
      error: `zot's package directory (package.json "${PACKAGE_NAME}") is not above ${dirname(pathOf(from))}; reinstall zot`,
    };
  }
  const path = join(root, relative);
  if (existsSync(join(path, marker))) return { ok: true, path };
  return {
    ok: false,
    error: `${join(path, marker)} is missing from this zot (${root}); reinstall zot, or run \`npm run build\` in a checkout`,
  };
}

/** zot's own Python SDK: the `zot_sdk` package directory. */
export function shippedPythonSdk(from: string = import.meta.url): Shipped {
  return shippedPath(PYTHON_SDK_PATH, '__init__.py', from);
}

/** zot's own TypeScript SDK: packages/sdk, with its packed build in dist/pack. */
export function shippedTypeScriptSdk(from: string = import.meta.url): Shipped {
  return shippedPath(TYPESCRIPT_SDK_PATH, 'dist/pack/index.js', from);
}
