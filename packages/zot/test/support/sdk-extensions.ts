// Extensions written against the real SDKs, in temp directories: a TypeScript one finding
// @zot/sdk through a node_modules link to the built package, a Python one beside a copy of
// sdk-python/zot_sdk. Each is a plain extension directory for `--ext`.
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

function manifest(dir: string, name: string, exec: string, args: string[], extra = {}): void {
  const body = { name, version: '1.0.0', exec, args, ...extra };
  writeFileSync(join(dir, 'extension.json'), JSON.stringify(body, null, 2));
}

/** `<root>/<name>/index.mjs` holding `source` (which imports '@zot/sdk'). */
export function tsSdkExtension(
  root: string,
  name: string,
  source: string,
  extraManifest: Record<string, unknown> = {},
): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'node_modules', '@zot'), { recursive: true });
  symlinkSync(join(ROOT, 'packages', 'sdk'), join(dir, 'node_modules', '@zot', 'sdk'));
  writeFileSync(join(dir, 'index.mjs'), source);
  manifest(dir, name, 'node', ['./index.mjs'], extraManifest);
  return dir;
}

/** `<root>/<name>/main.py` holding `source` (which imports zot_sdk), beside a copy of the SDK. */
export function pySdkExtension(
  root: string,
  name: string,
  source: string,
  extraManifest: Record<string, unknown> = {},
): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'sdk-python', 'zot_sdk'), join(dir, 'zot_sdk'), {
    recursive: true,
    filter: (path) => !path.includes('__pycache__'),
  });
  writeFileSync(join(dir, 'main.py'), source);
  manifest(dir, name, 'python3', ['./main.py'], extraManifest);
  return dir;
}
