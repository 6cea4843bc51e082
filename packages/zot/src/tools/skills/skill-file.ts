// One SKILL.md: YAML front matter (name, description, allowed-tools, permissions) and a
// markdown body. Parsed with the `yaml` package, so what other agents accept, zot accepts.
import { basename, dirname } from 'node:path';
import { errorMessage } from '../../util/errors.js';
import { readRegularText } from '../../util/regular-file.js';

/** Far beyond any real skill; a bigger file is a mistake or an attack, not instructions. */
export const MAX_SKILL_BYTES = 256 * 1024;
/** YAML aliases can multiply a small document (a "billion laughs"): few are ever needed. */
const MAX_ALIASES = 100;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface SkillHeader {
  name: string;
  description: string;
  /** As written (a string or list in the file); shown, not enforced. */
  allowedTools?: string[];
  /** As written; shown, not enforced. */
  permissions?: unknown;
}

export interface ParsedSkill extends SkillHeader {
  body: string;
}

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/** Loads the YAML parser (only runs that have skills pay for it). */
export async function loadYaml(): Promise<Yaml> {
  yaml ??= await import('yaml');
  return yaml;
}

function splitFrontMatter(text: string): { header: string; body: string } | undefined {
  const source = text.replace(/^\uFEFF/, '');
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return undefined;
  return { header: match[1]!, body: source.slice(match[0].length) };
}

function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return undefined;
}

/**
 * Parses SKILL.md text; `dirName` is the default name. Needs `loadYaml()` to have resolved.
 * Contract: never throws; an error names what is wrong (the caller adds the file).
 */
export function parseSkill(text: string, dirName: string): ParsedSkill | { error: string } {
  if (!yaml) return { error: 'the YAML parser is not loaded' };
  const parts = splitFrontMatter(text);
  if (!parts) return { error: 'no front matter (a --- block with name and description first)' };
  let data: unknown;
  try {
    data = yaml.parse(parts.header, { maxAliasCount: MAX_ALIASES, prettyErrors: false });
  } catch (error) {
    return { error: `front matter is not valid YAML: ${errorMessage(error).split('\n')[0]}` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { error: 'front matter must be a mapping (name: ..., description: ...)' };
  }
  const fields = data as Record<string, unknown>;
  const name = fields.name ?? dirName;
  if (typeof name !== 'string' || !NAME.test(name)) {
    return {
      error: `"name" must be 1-64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`,
    };
  }
  if (typeof fields.description !== 'string' || fields.description.trim() === '') {
    return { error: '"description" is required: one line saying when to use the skill' };
  }
  const skill: ParsedSkill = {
    name,
    description: fields.description.replace(/\s+/g, ' ').trim(),
    body: parts.body.trim(),
  };
  const tools = fields['allowed-tools'];
  if (tools !== undefined) {
    const list = stringList(tools);
    if (!list) return { error: '"allowed-tools" must be a string or a list of strings' };
    skill.allowedTools = list;
  }
  if (fields.permissions !== undefined) skill.permissions = fields.permissions;
  return skill;
}

/**
 * Reads and parses a SKILL.md file: a regular file (never a FIFO or device), of bounded size,
 * and inside `within` (after symlinks) when given. Contract: never throws; errors name the file.
 */
export function readSkillFile(path: string, within?: string): ParsedSkill | { error: string } {
  const read = readRegularText(path, {
    limit: MAX_SKILL_BYTES,
    ...(within !== undefined ? { within } : {}),
  });
  if (!read.ok) return { error: read.error };
  const parsed = parseSkill(read.text, basename(dirname(path)));
  return 'error' in parsed ? { error: `${path}: ${parsed.error}` } : parsed;
}
