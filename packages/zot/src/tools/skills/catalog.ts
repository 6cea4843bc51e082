// Where skills come from, in precedence order (the first of a name wins; a shadowed one is a
// warning naming both files): the project's .zot/skills, $ZOT_HOME/skills, the folders other
// agents use (.claude/skills, .agents/skills, in the project and in the home directory),
// extension bundles (prefixed `ext:`), then the skills built into zot. A project folder is
// looked for as AGENTS.md is: in the working directory and each one above it up to the project
// root, the nearest first. A project's skills must lie inside the project once symlinks are
// resolved (a `.zot/skills` that links to ~/secrets is skipped), and an extension's inside its
// directory: the model reads them, and so does the provider.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectDirs, projectRoot } from '../../util/repository.js';
import { isWithin } from '../../util/regular-file.js';
import { builtinSkills } from './builtin.js';
import { loadYaml, readSkillFile, type SkillHeader } from './skill-file.js';

export interface SkillEntry extends SkillHeader {
  /** The SKILL.md file. */
  file: string;
  /** Where it was found, for lists and warnings: `project`, `user`, `~/.claude`, `ext kit` ... */
  source: string;
  /** The directory the file must stay inside (the project, the extension), checked on each read. */
  within?: string;
}

export interface SkillCatalog {
  skills: SkillEntry[];
  warnings: string[];
}

/** A manifest's `skills` array, as plain data from the extension layer. */
export interface SkillBundle {
  extension: string;
  /** The extension directory (absolute). */
  dir: string;
  /** Entries as written: directories (scanned recursively) or SKILL.md paths. */
  entries: string[];
}

export interface SkillSources {
  cwd: string;
  zotHome: string;
  /** The user's home directory (for ~/.claude/skills and ~/.agents/skills). */
  home: string;
  bundles: SkillBundle[];
  /** The directory of zot's own skills. */
  builtinDir?: string;
}

/** Bounds on a bundle's recursive scan: deep trees and huge counts are not skill bundles. */
const MAX_DEPTH = 8;
const MAX_PER_BUNDLE = 200;

const isInside = isWithin;

/**
 * `<dir>/<name>/SKILL.md` for each child directory (symlinked ones included) where something of
 * that name exists: reading it says what is wrong when it is not a usable file. With `within`, a
 * `dir` that leads outside it (a symlinked `.zot/skills`) is skipped whole, with one warning.
 */
function childSkillFiles(dir: string, warn: (m: string) => void, within?: string): string[] {
  if (within !== undefined) {
    try {
      const real = realpathSync(dir);
      const root = realpathSync(within);
      if (!isWithin(root, real)) {
        warn(`skipped skills: ${dir} leads to ${real}, outside ${root}; not read`);
        return [];
      }
    } catch {
      return []; // no such directory
    }
  }
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .map((name) => join(dir, name, 'SKILL.md'))
    .filter((file) => {
      try {
        statSync(file);
        return true;
      } catch {
        return false;
      }
    });
}

/** Whether childSkillFiles refuses the folder whose real path is `real`: it leads outside `within`. */
function refused(real: string, within: string | undefined): boolean {
  if (within === undefined) return false;
  try {
    return !isWithin(realpathSync(within), real);
  } catch {
    return true;
  }
}

/** Every SKILL.md of one bundle entry, each proven (after symlinks) inside the extension. */
function bundleFiles(bundle: SkillBundle, entry: string, warn: (m: string) => void): string[] {
  let root: string;
  let target: string;
  try {
    root = realpathSync(bundle.dir);
    target = realpathSync(resolve(bundle.dir, entry));
  } catch {
    warn(`extension ${bundle.extension}: skills entry "${entry}" does not exist`);
    return [];
  }
  if (!isInside(root, target)) {
    warn(`extension ${bundle.extension}: skills entry "${entry}" points outside its directory`);
    return [];
  }
  if (!statSync(target).isDirectory()) return [target]; // reading it says what is wrong
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH || found.length >= MAX_PER_BUNDLE) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      let real: string;
      try {
        real = realpathSync(join(dir, name));
      } catch {
        continue;
      }
      if (!isInside(root, real)) {
        warn(
          `extension ${bundle.extension}: ${join(dir, name)} leads outside its directory; skipped`,
        );
        continue;
      }
      const stat = statSync(real);
      if (stat.isDirectory()) walk(real, depth + 1);
      else if (name === 'SKILL.md' && found.length < MAX_PER_BUNDLE) {
        found.push(real);
      }
    }
  };
  walk(target, 0);
  return found;
}

/**
 * Reads every skill from every source. Contract: never throws; a malformed SKILL.md is skipped
 * with a warning naming the file; re-reads the files on every call.
 */
export async function discoverSkills(sources: SkillSources): Promise<SkillCatalog> {
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  const project = projectRoot(sources.cwd);
  const levels = projectDirs(sources.cwd);
  // A folder reached twice (the home directory inside the project, a link) is read once. Only
  // a folder that was read counts: a project link to ~/.claude/skills is refused there, and the
  // same folder is still read as the user's own.
  const scanned = new Set<string>();
  const scan = (dir: string, within?: string) => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return []; // no such directory
    }
    if (scanned.has(real)) return [];
    const files = childSkillFiles(dir, warn, within);
    if (!refused(real, within)) scanned.add(real);
    return files;
  };
  // `<dir>/<folder>/skills` from the working directory up to the project root, nearest first.
  const inProject = (source: string, folder: string) =>
    levels.map((dir) => ({
      source,
      files: scan(join(dir, folder, 'skills'), project),
      within: project,
    }));
  const own = (dir: string) => ({ files: scan(dir) });
  const groups: Array<{ source: string; files: string[]; prefix?: string; within?: string }> = [
    ...inProject('project', '.zot'),
    { source: 'user', ...own(join(sources.zotHome, 'skills')) },
    ...inProject('.claude', '.claude'),
    { source: '~/.claude', ...own(join(sources.home, '.claude', 'skills')) },
    ...inProject('.agents', '.agents'),
    { source: '~/.agents', ...own(join(sources.home, '.agents', 'skills')) },
    ...sources.bundles.map((bundle) => ({
      source: `ext ${bundle.extension}`,
      prefix: `${bundle.extension}:`,
      files: [...new Set(bundle.entries.flatMap((entry) => bundleFiles(bundle, entry, warn)))],
      within: bundle.dir,
    })),
  ];
  const byName = new Map<string, SkillEntry>();
  // zot's own skills come last; their headers are known, so they need no parsing.
  const builtins = sources.builtinDir ? builtinSkills(sources.builtinDir) : [];
  if (groups.every((group) => group.files.length === 0)) return { skills: builtins, warnings };
  await loadYaml();
  for (const group of groups) {
    for (const file of group.files) {
      const parsed = readSkillFile(file, group.within);
      if ('error' in parsed) {
        warn(`skipped skill: ${parsed.error}`);
        continue;
      }
      const name = `${group.prefix ?? ''}${parsed.name}`;
      const earlier = byName.get(name);
      if (earlier) {
        warn(`skill "${name}" in ${file} is shadowed by ${earlier.file}`);
        continue;
      }
      const { body: _body, ...header } = parsed;
      byName.set(name, {
        ...header,
        name,
        file,
        source: group.source,
        ...(group.within !== undefined ? { within: group.within } : {}),
      });
    }
  }
  for (const skill of builtins) {
    const earlier = byName.get(skill.name);
    if (earlier) warn(`skill "${skill.name}" (built into zot) is shadowed by ${earlier.file}`);
    else byName.set(skill.name, skill);
  }
  return { skills: [...byName.values()], warnings };
}
