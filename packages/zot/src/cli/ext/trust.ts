// `zot ext trust [name|--all]` and `zot ext untrust <name>`: what a project extension would
// run, pinned by content hash in $ZOT_HOME/trust.json.
import { realpathSync } from 'node:fs';
import {
  discoverExtensions,
  projectExtensionsDir,
  type DiscoveredExtension,
} from '../../extensions/discovery.js';
import { argumentOutside, resolveExec } from '../../extensions/exec-resolve.js';
import { isInside } from '../../extensions/manifest.js';
import { hashExtension, type CoveredPath, type HashedEntry } from '../../extensions/trust-hash.js';
import { TrustStore, trustStateOf } from '../../extensions/trust.js';
import { errorMessage } from '../../util/errors.js';
import {
  fail,
  info,
  out,
  parseOptions,
  positionals,
  requireName,
  table,
  type ExtCommand,
  type ExtContext,
} from './common.js';

/** At most this many files are listed; the hash covers all of them either way. */
const MAX_LISTED = 200;

function discover(context: ExtContext): DiscoveredExtension[] {
  return discoverExtensions({
    cwd: context.cwd,
    zotHome: context.paths.home,
    extPaths: [],
    noExt: false,
  }).entries;
}

function fileRow(entry: HashedEntry): string[] {
  const kind = entry.kind === 'dir' ? 'd' : entry.kind === 'symlink' ? 'l' : '-';
  const mode = entry.kind === 'file' ? (entry.executable ? 'x' : '-') : '-';
  const detail =
    entry.kind === 'file'
      ? `${entry.sha256!.slice(0, 19)}  ${entry.size} bytes`
      : entry.kind === 'symlink'
        ? `-> ${entry.target}`
        : '';
  return [`${kind}${mode}`, entry.path, detail];
}

function coveredRow(path: CoveredPath): string[] {
  return [path.path, path.reason, `${path.entries} entries, ${path.bytes} bytes`];
}

/** Shows what would run and pins the current content. Returns false when it cannot be hashed. */
function trustOne(context: ExtContext, entry: DiscoveredExtension, store: TrustStore): boolean {
  const manifest = entry.manifest!;
  const outside = manifest.kind === 'process' ? argumentOutside(manifest) : undefined;
  const hashed = outside ? { ok: false as const, error: outside } : hashExtension(entry);
  if (!hashed.ok) {
    fail(context, `cannot trust ${manifest.name}: ${hashed.error}`);
    return false;
  }
  out(context, `project extension ${manifest.name} (${entry.dir})`);
  if (manifest.kind !== 'process') {
    out(
      context,
      `  runs:   nothing (${manifest.kind === 'theme' ? 'theme' : 'skill'}-only bundle)`,
    );
  } else {
    const exec = resolveExec(manifest, context.env);
    const argv = exec.ok ? [exec.command, ...exec.args] : [manifest.exec ?? '', ...manifest.args];
    out(context, `  runs:   ${argv.map(quote).join(' ')}`);
    out(context, `  in:     ${entry.dir}`);
    if (!exec.ok) out(context, `  note:   ${exec.error}`);
    if (!manifest.enabled)
      out(context, '  note:   disabled in extension.json; it will not run until enabled');
  }
  if (hashed.covered.length > 0) {
    out(context, `  covers: (outside the directory: Node loads modules from these for it)`);
    for (const line of table(hashed.covered.map(coveredRow))) out(context, `    ${line}`);
  }
  out(context, `  files:`);
  const listed = hashed.entries.slice(0, MAX_LISTED);
  for (const line of table(listed.map(fileRow))) out(context, `    ${line}`);
  if (hashed.entries.length > MAX_LISTED) {
    out(
      context,
      `    ... and ${hashed.entries.length - MAX_LISTED} more (all covered by the hash)`,
    );
  }
  out(context, `  hash:   ${hashed.hash}`);
  const read = store.read();
  if (read.ok && read.records.get(entry.dir)?.hash === hashed.hash) {
    info(context, `${manifest.name} is already trusted with this content`);
    return true;
  }
  try {
    store.set(entry.dir, manifest.name, hashed.hash);
  } catch (error) {
    fail(context, errorMessage(error));
    return false;
  }
  info(
    context,
    `trusted ${manifest.name}; it will run from the next start (any change needs trusting again)`,
  );
  return true;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export const trustCommand: ExtCommand = {
  name: 'trust',
  help: `Usage: zot ext trust [<name> | --all]

Project extensions (./.zot/extensions) come with the code you clone, so zot runs
them only once you trust them. Trusting shows what would run (the program, its
arguments and every file with its hash) and records the content hash in
$ZOT_HOME/trust.json. The hash covers the extension directory and what Node
would load for it from the project: every node_modules directory from the
extension's parent up to the project root, and the package.json above it when
it has none. Any later change to these means it must be trusted again.
Arguments naming paths outside the extension directory are refused. Global extensions and --ext paths are always
trusted; ZOT_TRUST_PROJECT_EXTENSIONS=1 trusts every project extension for one
run (for CI).

Without arguments, lists the project extensions and their trust state.

Options:
  --all   trust every project extension of this directory
`,
  async run(args, context) {
    const parsed = parseOptions('trust', args, [{ names: ['--all'], kind: 'bool' }]);
    const all = parsed.flags.has('--all');
    const names = positionals(
      'trust',
      parsed,
      parsed.positionals.length > 0 && !all ? ['name'] : [],
    );
    const entries = discover(context);
    const project = entries.filter((e) => e.scope === 'project');
    const store = new TrustStore(context.paths.trust);
    if (names.length === 0 && !all) {
      if (project.length === 0) {
        out(context, `no project extensions in ${projectExtensionsDir(context.cwd)}`);
        return 0;
      }
      const rows = project.map((e) => [
        e.manifest?.name ?? e.dir,
        e.manifest ? trustStateOf(e, store).state : 'manifest error',
        e.dir,
      ]);
      for (const line of table([['NAME', 'TRUST', 'DIRECTORY'], ...rows])) out(context, line);
      return 0;
    }
    let chosen: DiscoveredExtension[];
    if (all) {
      chosen = project.filter((e) => e.manifest);
      if (chosen.length === 0) {
        out(context, `no project extensions in ${projectExtensionsDir(context.cwd)}`);
        return 0;
      }
    } else {
      const name = requireName('trust', names[0]!);
      chosen = project.filter((e) => e.manifest?.name === name).slice(0, 1);
      if (chosen.length === 0) {
        const global = entries.find((e) => e.manifest?.name === name);
        if (global) {
          info(
            context,
            `${name} is a global extension (${global.dir}); global extensions are always trusted`,
          );
          return 0;
        }
        return fail(
          context,
          `no project extension named ${name} in ${projectExtensionsDir(context.cwd)} (see zot ext trust)`,
        );
      }
    }
    let ok = true;
    for (const entry of chosen) ok = trustOne(context, entry, store) && ok;
    return ok ? 0 : 1;
  },
};

export const untrustCommand: ExtCommand = {
  name: 'untrust',
  help: `Usage: zot ext untrust <name>

Removes the trust recorded for this directory's project extension <name> from
$ZOT_HOME/trust.json; it will not run again until trusted.
`,
  async run(args, context) {
    const parsed = parseOptions('untrust', args, []);
    const [name] = positionals('untrust', parsed, ['name']);
    requireName('untrust', name!);
    const store = new TrustStore(context.paths.trust);
    const read = store.read();
    if (!read.ok) return fail(context, read.error);
    const root = projectExtensionsDir(context.cwd);
    let realRoot = root;
    try {
      realRoot = realpathSync(root);
    } catch {
      // No project extensions directory any more: records under its path still match.
    }
    const current = discover(context)
      .filter((e) => e.scope === 'project' && e.manifest?.name === name)
      .map((e) => e.dir);
    const dirs = [...read.records]
      .filter(
        ([dir, record]) =>
          current.includes(dir) || (record.name === name && isInside(realRoot, dir)),
      )
      .map(([dir]) => dir);
    if (dirs.length === 0) return fail(context, `${name} is not trusted in this project (${root})`);
    try {
      store.remove(dirs);
    } catch (error) {
      return fail(context, errorMessage(error));
    }
    info(context, `${name} is no longer trusted`);
    return 0;
  },
};
