// The permission rules of a run, from their three sources. A project's file can only restrict
// until the user trusts its allow rules: that trust is pinned in trust.json to a hash of the
// allow list, as a project extension's is to its content, so a changed list is untrusted again.
import { existsSync } from 'node:fs';
import type { ZotPaths } from '../config/paths.js';
import { TrustStore, trustAllFromEnv } from '../ext-setup/trust.js';
import { RuleEngine } from '../security/rules/engine.js';
import { rulesFromFile, rulesFromFlags } from '../security/rules/load.js';
import { projectSettingsPath } from '../security/sandbox/load.js';
import type { Rule } from '../security/rules/parse.js';
import { nodeCrypto } from '../util/builtins.js';
import { UsageError } from '../util/errors.js';
import { realPathOr } from '../util/real-path.js';
import type { CliOptions } from './args.js';

/** The trust record's name for a project's allow rules (trust.json is keyed by path). */
const TRUST_NAME = 'permissions.allow';

export { projectSettingsPath } from '../security/sandbox/load.js';

/** `sha256:<hex>` of the allow rules as written, in order. */
export function allowHash(rules: readonly Rule[]): string {
  const texts = rules.filter((rule) => rule.action === 'allow').map((rule) => rule.text);
  return `sha256:${nodeCrypto().createHash('sha256').update(JSON.stringify(texts)).digest('hex')}`;
}

/** trust.json's key for a settings file: its real path. */
const trustKey = realPathOr;

export type ProjectAllowState = 'none' | 'trusted' | 'untrusted' | 'changed';

export interface LoadedPermissions {
  /** Every rule in force, in source order: cli, user, project. */
  rules: Rule[];
  /** The project's allow rules left out until trusted. */
  untrustedAllow: Rule[];
  projectAllow: ProjectAllowState;
  problems: string[];
}

/** Contract: throws UsageError for a bad --allow/--ask/--deny rule; never for a file. */
export function loadPermissions(
  flags: Pick<CliOptions, 'allow' | 'ask' | 'deny'>,
  cwd: string,
  paths: Pick<ZotPaths, 'config' | 'trust'>,
  env: NodeJS.ProcessEnv = process.env,
): LoadedPermissions {
  const context = { root: cwd };
  let cli: Rule[];
  try {
    cli = rulesFromFlags(flags, context);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const user = rulesFromFile(paths.config, 'user', context);
  const projectFile = projectSettingsPath(cwd);
  const project = existsSync(projectFile)
    ? rulesFromFile(projectFile, 'project', context)
    : { rules: [], problems: [] };
  const allow = project.rules.filter((rule) => rule.action === 'allow');
  let state: ProjectAllowState = allow.length === 0 ? 'none' : 'untrusted';
  if (allow.length > 0) {
    if (trustAllFromEnv(env)) state = 'trusted';
    else {
      const read = new TrustStore(paths.trust).read();
      const record = read.ok ? read.records.get(trustKey(projectFile)) : undefined;
      if (record) state = record.hash === allowHash(allow) ? 'trusted' : 'changed';
    }
  }
  const problems = [...user.problems, ...project.problems];
  const untrustedAllow = state === 'trusted' ? [] : allow;
  if (untrustedAllow.length > 0) {
    const listed = untrustedAllow.map((rule) => `"${rule.text}"`).join(', ');
    problems.push(
      `${projectFile}: its allow rules ${listed} are ignored: the project's allow rules count ` +
        `only once trusted${state === 'changed' ? ' (they changed since you trusted them)' : ''}; ` +
        'review them, then run `zot permissions trust`',
    );
  }
  const kept = project.rules.filter((rule) => rule.action !== 'allow' || state === 'trusted');
  return {
    rules: [...cli, ...user.rules, ...kept],
    untrustedAllow,
    projectAllow: state,
    problems,
  };
}

/** The engine of a run, or undefined when there are no rules. */
export function permissionEngine(loaded: LoadedPermissions, cwd: string): RuleEngine | undefined {
  return loaded.rules.length === 0 ? undefined : new RuleEngine(loaded.rules, { cwd });
}

/** Trusts (or forgets) the project's current allow rules. Returns what was done. */
export function trustProjectAllow(
  cwd: string,
  paths: Pick<ZotPaths, 'trust'>,
  trust: boolean,
): string {
  const file = projectSettingsPath(cwd);
  const store = new TrustStore(paths.trust);
  const key = trustKey(file);
  if (!trust) {
    return store.remove([key]) > 0
      ? `forgot the trust of ${file}'s allow rules`
      : `${file}'s allow rules were not trusted`;
  }
  const loaded = rulesFromFile(file, 'project', { root: cwd });
  const allow = loaded.rules.filter((rule) => rule.action === 'allow');
  if (allow.length === 0) return `${file} has no allow rules to trust`;
  store.set(key, TRUST_NAME, allowHash(allow));
  return `trusted ${allow.length} allow rule${allow.length === 1 ? '' : 's'} of ${file}: ${allow
    .map((rule) => rule.text)
    .join(', ')}`;
}
