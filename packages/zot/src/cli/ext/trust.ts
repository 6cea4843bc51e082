// `zot ext trust [name|--all]` and `zot ext untrust <name>`: what a project extension would
// run, pinned by content hash in $ZOT_HOME/trust.json.
import { projectExtensionsDir, type DiscoveredExtension } from '../../ext-setup/discovery.js';
import { argumentOutside, resolveExec } from '../../ext-setup/exec-resolve.js';
import { projectRuntimeProblem } from '../../ext-setup/project-runtime.js';
import { isInside } from '../../ext-setup/manifest.js';
import { displayUrl } from '../../ext-setup/remote-config.js';
import { hashExtension, type CoveredPath, type HashedEntry } from '../../ext-setup/trust-hash.js';
import { TrustStore, trustStateOf, widenedSinceTrust } from '../../ext-setup/trust.js';
import { canonicalPermissions, describePermissions } from '../../security/scope/permissions.js';
import { errorMessage, UsageError } from '../../util/errors.js';
import { realPathOr } from '../../util/real-path.js';
import { shellQuote } from '../../util/shell-words.js';
import { terminalSafe } from '../../util/terminal-text.js';
import {
  discoverHere,
  confirm,
  fail,
  info,
  nameArgument,
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

// Every field below may come from the manifest or a file name: one line each, escaped.
function fileRow(entry: HashedEntry): string[] {
  const kind = entry.kind === 'dir' ? 'd' : entry.kind === 'symlink' ? 'l' : '-';
  const mode = entry.kind === 'file' ? (entry.executable ? 'x' : '-') : '-';
  const detail =
    entry.kind === 'file'
      ? `${entry.sha256!.slice(0, 19)}  ${entry.size} bytes`
      : entry.kind === 'symlink'
        ? `-> ${terminalSafe(entry.target!)}`
        : '';
  return [`${kind}${mode}`, terminalSafe(entry.path), detail];
}

function coveredRow(path: CoveredPath): string[] {
  return [terminalSafe(path.path), path.reason, `${path.entries} entries, ${path.bytes} bytes`];
}

/** The global extension a project entry has the name of, if any. */
function globalNamed(
  entries: DiscoveredExtension[],
  name: string,
): DiscoveredExtension | undefined {
  return entries.find((e) => e.scope === 'global' && e.manifest?.name === name);
}

/**
 * The hash to pin after the review was shown, or undefined when it cannot be trusted. `clash`:
 * the global extension of the same name; `replace`: whether trusting replaces it.
 */
function review(
  context: ExtContext,
  entry: DiscoveredExtension,
  clash: DiscoveredExtension | undefined,
  replace: boolean,
): string | undefined {
  const manifest = entry.manifest!;
  const outside = manifest.kind === 'process' ? argumentOutside(manifest) : undefined;
  const hashed = outside ? { ok: false as const, error: outside } : hashExtension(entry);
  if (!hashed.ok) {
    fail(context, `cannot trust ${manifest.name}: ${hashed.error}`);
    return undefined;
  }
  const dir = terminalSafe(entry.dir);
  out(context, `project extension ${manifest.name} (${dir})`);
  if (manifest.description !== undefined)
    out(context, `  about:  ${terminalSafe(manifest.description)}`);
  if (clash) {
    const global = `your global extension ${manifest.name} (${terminalSafe(clash.dir)})`;
    out(
      context,
      replace
        ? `  replaces: ${global}: in this project this one runs in its place`
        : `  clash:  ${global} has this name and keeps running; this one stays unused even ` +
            `when trusted (\`zot ext trust ${manifest.name} --replace\` lets it replace that one here)`,
    );
  }
  if (manifest.remote) {
    const remote = manifest.remote;
    out(context, `  connects: ${terminalSafe(displayUrl(remote.url))} (${remote.type})`);
    const names = Object.keys(remote.headers);
    if (names.length > 0)
      out(context, `  headers:  ${terminalSafe(names.join(', '))} (values are not shown)`);
    if (remote.tokenEnv)
      out(context, `  token:    from ${terminalSafe(remote.tokenEnv)}, sent to that server`);
  } else if (manifest.kind !== 'process') {
    out(
      context,
      `  runs:   nothing (${manifest.kind === 'theme' ? 'theme' : 'skill'}-only bundle)`,
    );
  } else {
    const exec = resolveExec(manifest, context.env);
    const argv = exec.ok ? [exec.command, ...exec.args] : [manifest.exec ?? '', ...manifest.args];
    out(context, `  runs:   ${argv.map((word) => terminalSafe(shellQuote(word))).join(' ')}`);
    out(context, `  in:     ${dir}`);
    if (!exec.ok) out(context, `  note:   ${terminalSafe(exec.error)}`);
    const unpinned = exec.ok ? projectRuntimeProblem(entry, exec.command, context.env) : undefined;
    if (unpinned) out(context, `  note:   ${terminalSafe(unpinned)}`);
    if (!manifest.enabled)
      out(context, '  note:   disabled in extension.json; it will not run until enabled');
    const [first, ...rest] = manifest.permissions
      ? [
          'scoped: it runs in a sandbox holding only this',
          ...describePermissions(manifest.permissions),
        ]
      : describePermissions(undefined);
    out(context, `  access: ${terminalSafe(first!)}`);
    for (const line of rest) out(context, `          ${terminalSafe(line)}`);
    const read = new TrustStore(context.paths.trust).read();
    const widened = widenedSinceTrust(
      read.ok ? read.records.get(entry.dir) : undefined,
      manifest.permissions,
    );
    if (widened.length > 0) {
      out(context, '  wider:  it asks for more than when you trusted it:');
      for (const line of widened) out(context, `          ${terminalSafe(line)}`);
    }
  }
  if (hashed.covered.length > 0) {
    out(context, `  covers: (outside the directory: Node loads modules from these for it)`);
    for (const line of table(hashed.covered.map(coveredRow))) out(context, `    ${line}`);
  }
  if (hashed.boundary !== undefined) {
    out(
      context,
      `  up to:  ${terminalSafe(hashed.boundary)} (what lies above it, and your interpreters, are not pinned)`,
    );
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
  return hashed.hash;
}

/**
 * Pins `hash`, the content the user reviewed, and `replaces`, the global extension directory
 * the review said it replaces. Returns false on failure.
 */
function record(
  context: ExtContext,
  entry: DiscoveredExtension,
  hash: string,
  clash: DiscoveredExtension | undefined,
  replaces: string | undefined,
): boolean {
  const name = entry.manifest!.name;
  try {
    new TrustStore(context.paths.trust).set(entry.dir, name, hash, {
      replaces,
      permissions: canonicalPermissions(entry.manifest!.permissions),
    });
  } catch (error) {
    fail(context, errorMessage(error));
    return false;
  }
  info(
    context,
    clash && replaces === undefined
      ? `trusted ${name}; it still does not run here, where your global ${name} keeps the name`
      : `trusted ${name}; it will run from the next start${replaces ? ` in place of your global ${name}` : ''} (any change needs trusting again)`,
  );
  return true;
}

/** Exit status when trust was not recorded because nobody could be asked (usage-like). */
const NEEDS_YES = 2;

export const trustCommand: ExtCommand = {
  name: 'trust',
  help: `Usage: zot ext trust [<name> | --all] [--yes]

Project extensions (./.zot/extensions) come with the code you clone, so zot runs
them only once you trust them. Trusting shows what would run (the program, its
arguments and every file with its hash), asks [y/N], and records the content
hash in $ZOT_HOME/trust.json. The hash covers the extension directory (but its
.git) and what Node would load for it from the repository: every node_modules
directory from the extension's parent up to the repository root (the project
root outside a repository), and the package.json above it when it has none.
Any later change to these means it must be trusted again. Refused, because the
hash could not pin them: arguments naming paths outside the extension
directory, an exec or symlink leading into its .git, and a program on PATH or
a NODE_PATH/PYTHONPATH entry inside the repository.

A project extension with the name of one of your global extensions never
replaces it unless its trust says so: without --replace the global one keeps
running (and this one stays unused even when trusted); with --replace the
review names both and, once trusted, the project one runs in its place in
this project.
Global extensions and --ext paths are always trusted;
ZOT_TRUST_PROJECT_EXTENSIONS=1 trusts every project extension for one run (CI).

Without arguments, lists the project extensions and their trust state.

When stdin is not a terminal nobody can be asked: the review is printed and
nothing is recorded (exit status 2) unless --yes is given.

Options:
  --all       review (and trust) every project extension of this directory
  --replace   with <name>: let it replace your global extension of that name here
  -y, --yes   record the trust after showing the review, without asking
`,
  async run(args, context) {
    const parsed = parseOptions('trust', args, [
      { names: ['--all'], kind: 'bool' },
      { names: ['-y', '--yes'], kind: 'bool' },
      { names: ['--replace'], kind: 'bool' },
    ]);
    const all = parsed.flags.has('--all');
    const replace = parsed.flags.has('--replace');
    const names = positionals(
      'trust',
      parsed,
      parsed.positionals.length > 0 && !all ? ['name'] : [],
    );
    const entries = discoverHere(context);
    const project = entries.filter((e) => e.scope === 'project');
    const store = new TrustStore(context.paths.trust);
    if (names.length === 0 && !all) {
      if (project.length === 0) {
        out(context, `no project extensions in ${projectExtensionsDir(context.cwd)}`);
        return 0;
      }
      const rows = project.map((e) => [
        terminalSafe(e.manifest?.name ?? e.dir),
        e.manifest ? trustNote(e, trustStateOf(e, store).state) : 'manifest error',
        terminalSafe(e.dir),
      ]);
      for (const line of table([['NAME', 'TRUST', 'DIRECTORY'], ...rows])) out(context, line);
      return 0;
    }
    if (replace && (all || names.length === 0)) {
      throw new UsageError(
        'ext trust: --replace needs the name of one project extension (see zot ext trust --help)',
      );
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
    const yes = parsed.flags.has('--yes');
    const unasked: string[] = [];
    let ok = true;
    for (const entry of chosen) {
      const name = entry.manifest!.name;
      const clash = globalNamed(entries, name);
      if (replace && !clash)
        info(context, `there is no global extension ${name}; --replace changes nothing`);
      const replaces = replace && clash ? clash.dir : undefined;
      const hash = review(context, entry, clash, replace && clash !== undefined);
      if (hash === undefined) {
        ok = false;
        continue;
      }
      const read = store.read();
      const existing = read.ok ? read.records.get(entry.dir) : undefined;
      if (existing?.hash === hash && existing.replaces === replaces) {
        info(context, `${name} is already trusted with this content`);
        continue;
      }
      if (!yes && !context.stdin.isTTY) {
        unasked.push(name);
        continue;
      }
      const rights = entry.manifest!.permissions
        ? 'in its sandbox with the permissions above'
        : 'with your full rights';
      const question = replaces
        ? `Trust ${name}, let it run ${rights} and replace your global ${name} here?`
        : `Trust ${name} and let it run ${rights}?`;
      if (!yes && !(await confirm(context, question))) {
        info(context, `${name} was not trusted`);
        ok = false;
        continue;
      }
      ok = record(context, entry, hash, clash, replaces) && ok;
    }
    if (unasked.length > 0) {
      const rerun = all
        ? 'zot ext trust --all --yes'
        : `zot ext trust ${unasked[0]}${replace ? ' --replace' : ''} --yes`;
      fail(
        context,
        `not trusted: ${unasked.join(', ')}; stdin is not a terminal, so zot cannot ask. ` +
          `Read the review above, then run \`${rerun}\` to record it`,
      );
      return NEEDS_YES;
    }
    return ok ? 0 : 1;
  },
};

/** The TRUST column: the state, and what a clash with a global extension means for it. */
function trustNote(entry: DiscoveredExtension, state: string): string {
  if (entry.replaces) return `${state}, replaces global`;
  if (entry.clash) return `${state}, global one runs`;
  return state;
}

export const untrustCommand: ExtCommand = {
  name: 'untrust',
  help: `Usage: zot ext untrust <name>

Removes the trust recorded for this directory's project extension <name> from
$ZOT_HOME/trust.json; it will not run again until trusted.
`,
  async run(args, context) {
    const parsed = parseOptions('untrust', args, []);
    const name = nameArgument('untrust', parsed);
    const store = new TrustStore(context.paths.trust);
    const read = store.read();
    if (!read.ok) return fail(context, read.error);
    const root = projectExtensionsDir(context.cwd);
    // With no project extensions directory any more, records under its path still match.
    const realRoot = realPathOr(root);
    const current = discoverHere(context)
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
