// theme.json: a named set of colour roles (docs/themes.md). Untrusted input (a theme-only
// extension ships it): bounded in size, checked field by field, every problem named with the file.
import { COLOR_ROLES, DARK, LIGHT, type Color, type ColorRole, type ThemeSpec } from './theme.js';

/** A theme is a few dozen colours; anything near this is not a theme. */
export const MAX_THEME_BYTES = 64 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ROLES = new Set<string>(COLOR_ROLES);

export interface ThemeFileResult {
  theme?: ThemeSpec;
  /** Problems that made the file unusable (then `theme` is absent). */
  errors: string[];
  /** Problems that were skipped (an unknown role, a bad colour for one role). */
  warnings: string[];
}

function colorOf(value: unknown): Color | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 255) {
    return value;
  }
  if (typeof value === 'string' && /^#[0-9a-fA-F]{6}$/.test(value)) return value.toLowerCase();
  return undefined;
}

const describe = (value: unknown) => JSON.stringify(value)?.slice(0, 40) ?? String(value);

/**
 * Reads one theme file's text. Roles it does not set come from its `base` (dark or light,
 * default dark). Contract: never throws.
 */
export function parseThemeFile(text: string, file: string): ThemeFileResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const fail = (message: string): ThemeFileResult => ({
    errors: [...errors, `${file}: ${message}`],
    warnings,
  });
  if (Buffer.byteLength(text) > MAX_THEME_BYTES) {
    return fail(`is over ${MAX_THEME_BYTES / 1024} KiB; a theme is a list of colours`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return fail('is not valid JSON');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return fail('must be a JSON object with "name" and "colors"');
  }
  const record = data as Record<string, unknown>;
  if (typeof record.name !== 'string' || !NAME.test(record.name)) {
    return fail(
      `"name" must be 1-64 letters, digits, ".", "_" or "-" (got ${describe(record.name)})`,
    );
  }
  const baseName = record.base ?? 'dark';
  if (baseName !== 'dark' && baseName !== 'light') {
    return fail(`"base" must be "dark" or "light" (got ${describe(baseName)})`);
  }
  const colors = record.colors;
  if (colors === null || typeof colors !== 'object' || Array.isArray(colors)) {
    return fail('"colors" must be an object of role: colour');
  }
  const base = baseName === 'light' ? LIGHT : DARK;
  const merged: Record<ColorRole, Color> = { ...base.colors };
  for (const [role, value] of Object.entries(colors as Record<string, unknown>)) {
    if (!ROLES.has(role)) {
      warnings.push(`${file}: unknown colour role "${role.slice(0, 40)}" ignored`);
      continue;
    }
    const color = colorOf(value);
    if (color === undefined) {
      warnings.push(
        `${file}: "${role}" must be "#rrggbb" or a palette index 0-255 (got ${describe(value)}); ` +
          `using the ${baseName} theme's`,
      );
      continue;
    }
    merged[role as ColorRole] = color;
  }
  return { theme: { name: record.name, colors: merged }, errors, warnings };
}
