// The version: injected by the bundler, else read from the package manifest.
import { readFileSync } from 'node:fs';

declare const __ZOT_VERSION__: string | undefined;

export function zotVersion(): string {
  if (typeof __ZOT_VERSION__ === 'string') return __ZOT_VERSION__;
  try {
    const url = new URL('../../../package.json', import.meta.url);
    const manifest = JSON.parse(readFileSync(url, 'utf8')) as { version?: string };
    return manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
