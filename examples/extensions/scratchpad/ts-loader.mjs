// Module hooks: .ts files are loaded through esbuild's transform (types stripped, nothing
// checked: run `npx tsc --noEmit` for that), and `./x.js` imports find `./x.ts`, as tsc's
// NodeNext resolution expects.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw err;
    return nextResolve(specifier.slice(0, -3) + '.ts', context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: path,
    sourcemap: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
