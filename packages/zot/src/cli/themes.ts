// The themes of this run: the built-in dark and light, then each theme-only extension's
// theme.json (installed or in the project, as discovery finds them), and the saved choice.
import { existsSync } from 'node:fs';
import { readRegularText } from '../util/regular-file.js';
import { discoverForRun } from './discover.js';
import { join } from 'node:path';
import type { ZotPaths } from '../config/paths.js';
import { loadSettings, saveSettings } from '../config/settings.js';
import { MAX_THEME_BYTES, parseThemeFile } from '../tui/theme-file.js';
import { DARK, LIGHT, type ThemeSpec } from '../tui/theme.js';
import type { CliOptions } from './args.js';

export interface RunThemes {
  themes: ThemeSpec[];
  /** The saved choice, if it names a theme that exists. */
  chosen?: string;
  warnings: string[];
  save(name: string): void;
}

/** Contract: never throws; a bad theme file is a warning naming it, the others load. */
export async function loadThemes(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
): Promise<RunThemes> {
  const themes: ThemeSpec[] = [DARK, LIGHT];
  const warnings: string[] = [];
  try {
    const { THEME_FILES } = await import('../ext-setup/manifest.js');
    const entries = await discoverForRun(options, cwd, paths);
    for (const entry of entries) {
      if (entry.status !== 'theme-only' || !entry.manifest) continue;
      const file = THEME_FILES.map((name) => join(entry.manifest!.dir, name)).find(existsSync);
      if (!file) continue;
      // One byte past the bound is enough for the parser to refuse a file that is too big.
      const read = readRegularText(file, {
        limit: MAX_THEME_BYTES + 1,
        over: 'cut',
        within: entry.manifest.dir,
      });
      if (!read.ok) {
        warnings.push(`theme skipped: ${read.error}`);
        continue;
      }
      const parsed = parseThemeFile(read.text, file);
      warnings.push(...parsed.errors, ...parsed.warnings);
      if (!parsed.theme) continue;
      if (themes.some((theme) => theme.name === parsed.theme!.name)) {
        warnings.push(`${file}: a theme named "${parsed.theme.name}" is already loaded; skipped`);
        continue;
      }
      themes.push(parsed.theme);
    }
  } catch (error) {
    warnings.push(`themes could not be read: ${(error as Error).message}`);
  }
  const saved = loadSettings(paths.config).settings.theme;
  return {
    themes,
    ...(saved && themes.some((theme) => theme.name === saved) ? { chosen: saved } : {}),
    warnings,
    save: (name) => saveSettings(paths.config, { theme: name }),
  };
}
