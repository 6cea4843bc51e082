// The skills that ship with zot. Their headers are known here so that a run with no other
// skills never loads the YAML parser; a test proves each matches its SKILL.md.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillEntry } from './catalog.js';

export const BUILTIN_SKILL_HEADERS = [
  {
    name: 'zot-extension',
    description:
      'Write, test and install a zot extension (slash commands, tools for the model, ' +
      'interception, panels) with the TypeScript or Python SDK.',
  },
] as const;

/**
 * The directory of zot's own skills (`packages/zot/skills`), found from this module whether it
 * runs from the bundle or the per-file build. Contract: undefined when it is not installed.
 */
export function builtinSkillsDir(from = import.meta.url): string | undefined {
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'skills');
    if (existsSync(join(candidate, BUILTIN_SKILL_HEADERS[0].name, 'SKILL.md'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

export function builtinSkills(dir: string): SkillEntry[] {
  return BUILTIN_SKILL_HEADERS.map((header) => ({
    ...header,
    file: join(dir, header.name, 'SKILL.md'),
    source: 'built-in',
  }));
}
