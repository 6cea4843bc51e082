// `zot ext enable|disable <name>`: sets "enabled" in the manifest, keeping every other field.
import { join } from 'node:path';
import { MANIFEST_FILE, readManifest, writeManifestField } from '../../ext-setup/manifest.js';
import { errorMessage } from '../../util/errors.js';
import {
  discoverHere,
  fail,
  nameArgument,
  out,
  parseOptions,
  type ExtCommand,
  type ExtContext,
} from './common.js';

async function setEnabled(args: string[], context: ExtContext, enabled: boolean): Promise<number> {
  const command = enabled ? 'enable' : 'disable';
  const parsed = parseOptions(command, args, []);
  const name = nameArgument(command, parsed);
  const entries = discoverHere(context);
  // The entry that claims the name is the one that would run (a project entry that gave way
  // to the global one of its name is not it).
  const entry =
    entries.find((e) => e.manifest?.name === name && e.status !== 'shadowed') ??
    entries.find((e) => e.manifest?.name === name);
  if (!entry?.manifest) {
    const broken = [
      join(context.paths.extensions, name),
      join(context.cwd, '.zot', 'extensions', name),
    ]
      .map((dir) => readManifest(dir))
      .find((read) => !read.ok && !read.error.includes('not found'));
    if (broken && !broken.ok) return fail(context, broken.error);
    return fail(
      context,
      `no extension named ${name} in ./.zot/extensions or ${context.paths.extensions} (see zot ext list)`,
    );
  }
  const manifest = entry.manifest;
  const where = `${manifest.name} (${join(manifest.dir, MANIFEST_FILE)})`;
  if (manifest.enabled === enabled) {
    out(context, `${where} is already ${command}d`);
    return 0;
  }
  try {
    writeManifestField(manifest.manifestPath, 'enabled', enabled);
  } catch (error) {
    return fail(context, errorMessage(error));
  }
  out(context, `${command}d ${where}`);
  if (entry.scope === 'project' && enabled) {
    out(
      context,
      `its manifest changed, so trust it again before it runs: zot ext trust ${manifest.name}`,
    );
  }
  return 0;
}

function toggleCommand(enabled: boolean): ExtCommand {
  const name = enabled ? 'enable' : 'disable';
  return {
    name,
    help: `Usage: zot ext ${name} <name>

Sets "enabled": ${enabled} in the extension's extension.json, keeping every other field.
The extension is looked up like zot does at start-up: ./.zot/extensions first,
then $ZOT_HOME/extensions; the first one with that name is changed.
`,
    run: (args, context) => setEnabled(args, context, enabled),
  };
}

export const enableCommand = toggleCommand(true);
export const disableCommand = toggleCommand(false);
