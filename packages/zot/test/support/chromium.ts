// Headless Chromium for the tests that open a page zot wrote (.ci/run installs Debian's
// `chromium`). A test skips only where no Chromium is installed and this is not CI.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hangGuard } from './timing.js';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

let found: string | null | undefined;

/** The Chromium binary on PATH, if any. */
export function findChromium(): string | undefined {
  if (found === undefined) {
    found = null;
    for (const name of NAMES) {
      const probe = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
      if (probe.status === 0 && probe.stdout.trim() !== '') {
        found = probe.stdout.trim();
        break;
      }
    }
  }
  return found ?? undefined;
}

/** Why a Chromium test cannot run here, for t.skip(); throws in CI, where it must run. */
export function chromiumMissing(): string | undefined {
  if (findChromium()) return undefined;
  if (process.env.CI) throw new Error('chromium is not installed; .ci/run installs it (apt)');
  return 'chromium is not installed (apt-get install chromium)';
}

/**
 * The DOM of `file` after Chromium loaded it and ran what it would run (scripts, image loads)
 * for `budgetMs` of virtual time, serialised.
 */
export async function dumpDom(file: string, budgetMs = 3000): Promise<string> {
  const binary = findChromium();
  if (!binary) throw new Error('chromium is not installed');
  const profile = mkdtempSync(join(tmpdir(), 'zot-chromium-'));
  try {
    return await new Promise<string>((resolve, reject) => {
      execFile(
        binary,
        [
          '--headless',
          '--no-sandbox', // tests run as root in CI
          '--disable-gpu',
          '--no-first-run',
          `--user-data-dir=${profile}`,
          `--virtual-time-budget=${budgetMs}`,
          '--dump-dom',
          pathToFileURL(file).href,
        ],
        { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: hangGuard(60_000) },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`chromium failed: ${error.message}\n${stderr.slice(-2000)}`));
          else resolve(stdout);
        },
      );
    });
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Every start tag of a serialised DOM (text there has `<` escaped, so each `<x` is a tag). */
export function startTags(dom: string): Array<{ name: string; attributes: Map<string, string> }> {
  const tags: Array<{ name: string; attributes: Map<string, string> }> = [];
  for (const match of dom.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const attributes = new Map<string, string>();
    for (const attr of match[2]!.matchAll(/([^\s=>]+)(?:="([^"]*)")?/g))
      attributes.set(attr[1]!.toLowerCase(), (attr[2] ?? '').replace(/&amp;/g, '&'));
    tags.push({ name: match[1]!.toLowerCase(), attributes });
  }
  return tags;
}
