// `zot ext install <path|git-url> [--force]` and `zot ext remove <name> [--yes]`.
import { installExtension, locateInstalled, removeExtension } from '../../ext-setup/install.js';
import {
  confirm,
  fail,
  info,
  nameArgument,
  out,
  parseOptions,
  positionals,
  type ExtCommand,
} from './common.js';

export const installCommand: ExtCommand = {
  name: 'install',
  help: `Usage: zot ext install <path|git-url> [--force]

Installs an extension into $ZOT_HOME/extensions/<name>, where <name> is the
"name" of its extension.json. A path is copied recursively (file modes kept;
a symlink pointing outside the tree is refused); a git URL (https://, ssh://,
git://, file:// or user@host:path) is cloned with \`git clone --depth 1\`.
The manifest is validated before anything is installed, and any failure rolls
back completely. \`zot ext install .\` installs the current directory.

Options:
  --force   replace an existing installation of the same name
`,
  async run(args, context) {
    const parsed = parseOptions('install', args, [{ names: ['--force'], kind: 'bool' }]);
    const [source] = positionals('install', parsed, ['path|git-url']);
    const result = await installExtension({
      source: source!,
      cwd: context.cwd,
      extensionsDir: context.paths.extensions,
      force: parsed.flags.has('--force'),
      env: context.env,
    });
    if (!result.ok) return fail(context, `install failed: ${result.error}`);
    for (const warning of result.warnings) info(context, `warning: ${warning}`);
    const { manifest } = result;
    const version = manifest.version ? ` ${manifest.version}` : '';
    const verb = result.replaced ? 'replaced' : 'installed';
    out(context, `${verb} ${manifest.name}${version} in ${result.dir}`);
    if (!manifest.enabled)
      out(context, `it is disabled; enable it with: zot ext enable ${manifest.name}`);
    out(context, `check it with: zot ext doctor`);
    return 0;
  },
};

export const removeCommand: ExtCommand = {
  name: 'remove',
  help: `Usage: zot ext remove <name> [--yes]

Deletes $ZOT_HOME/extensions/<name> after asking [y/N]. Only a real directory
inside $ZOT_HOME/extensions is ever deleted (a symlink there is refused);
project extensions (./.zot/extensions) are not touched.

Options:
  -y, --yes   do not ask
`,
  async run(args, context) {
    const parsed = parseOptions('remove', args, [{ names: ['-y', '--yes'], kind: 'bool' }]);
    const name = nameArgument('remove', parsed);
    const located = locateInstalled(context.paths.extensions, name);
    if (!located.ok) return fail(context, located.error);
    if (!parsed.flags.has('--yes')) {
      if (!(await confirm(context, `Remove the extension ${name} (${located.dir})?`))) {
        info(context, 'not removed');
        return 1;
      }
    }
    const result = removeExtension(context.paths.extensions, name);
    if (!result.ok) return fail(context, result.error);
    out(context, `removed ${name} (${result.dir})`);
    return 0;
  },
};
