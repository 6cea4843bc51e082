// The version, read from the package manifest without importing anything heavy.
import { readFileSync } from 'node:fs';

export function zotVersion(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: string;
    };
    return manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
