// Skills for one run: the catalog (listed in the system prompt), the skill tool reading it, and
// a re-read for /skills. Extension bundles come from the manifests the host would load.
import { homedir } from 'node:os';
import type { Tool } from '../agent/tool.js';
import type { ZotPaths } from '../config/paths.js';
import { createSkillTool } from '../tools/skill.js';
import type { FileGuard } from '../tools/index.js';
import { builtinSkillsDir } from '../tools/skills/builtin.js';
import { discoverSkills, type SkillBundle, type SkillCatalog } from '../tools/skills/catalog.js';
import { loadYaml, readSkillFile } from '../tools/skills/skill-file.js';
import type { CliOptions } from './args.js';
import { discoverForRun } from './discover.js';

export interface RunSkills {
  catalog: SkillCatalog;
  tool: Tool;
  /** Reads every source again; the tool sees the result. */
  reread(): Promise<SkillCatalog>;
  /** One skill's body, read now (the /skills preview). */
  body(name: string): Promise<{ body: string; file: string } | { error: string }>;
}

/** Bundles of the extensions that would load (not disabled, shadowed or broken). */
async function extensionBundles(options: CliOptions, cwd: string, paths: ZotPaths) {
  const entries = await discoverForRun(options, cwd, paths);
  const bundles: SkillBundle[] = [];
  for (const entry of entries) {
    const manifest = entry.manifest;
    if (!manifest || manifest.skills.length === 0) continue;
    if (entry.status === 'disabled' || entry.status === 'shadowed' || entry.status === 'error') {
      continue;
    }
    bundles.push({ extension: manifest.name, dir: manifest.dir, entries: manifest.skills });
  }
  return bundles;
}

/** Contract: never throws; problems come back as catalog warnings. */
export async function setupSkills(
  options: CliOptions,
  cwd: string,
  paths: ZotPaths,
  mayHaveExtensions: boolean,
  guard?: FileGuard,
): Promise<RunSkills> {
  const builtinDir = builtinSkillsDir();
  const read = async () =>
    discoverSkills({
      cwd,
      zotHome: paths.home,
      home: homedir(),
      bundles: mayHaveExtensions ? await extensionBundles(options, cwd, paths) : [],
      ...(builtinDir ? { builtinDir } : {}),
    });
  let catalog = await read();
  return {
    catalog,
    tool: createSkillTool(() => catalog.skills, guard),
    reread: async () => (catalog = await read()),
    body: async (name) => {
      const entry = catalog.skills.find((skill) => skill.name === name);
      if (!entry) return { error: `unknown skill "${name}"` };
      await loadYaml();
      const parsed = readSkillFile(entry.file, entry.within);
      return 'error' in parsed ? parsed : { body: parsed.body, file: entry.file };
    },
  };
}
