// Changing the rules in their files while zot runs: `/permissions remove` and "always allow".
// Every change is a locked read-modify-write of that file (updateJsonObject), so a concurrent
// zot's change to another setting is kept, and a file that does not parse is never replaced.
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { updateJsonObject } from '../config/json-file.js';
import type { RuleAction } from '../security/rules/parse.js';

/** The files rules are written to; the composition root knows where they are. */
export interface RuleFiles {
  user: string;
  project: string;
  /**
   * After the user added or removed a project allow rule: pins the file's allow list again when
   * it was trusted before (or had none), so what the user just chose counts. Returns a note.
   */
  repinProjectAllow?(): Promise<string | undefined>;
}

type Settings = Record<string, unknown> & { permissions?: Record<string, unknown> };

function edit(file: string, change: (list: string[]) => string[] | undefined, action: RuleAction) {
  mkdirSync(dirname(file), { recursive: true });
  // a project's file is hostile: a FIFO would block the read below, a device never end
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) throw new Error(`${file} is not a regular file`);
  updateJsonObject<Settings>(file, 0o644, (read) => {
    if (!read.ok) throw new Error(`${read.error}; fix it, then try again`);
    const settings: Settings = { ...(read.value ?? {}) };
    const permissions = settings.permissions ?? {};
    if (typeof permissions !== 'object' || Array.isArray(permissions)) {
      throw new Error(`${file}: "permissions" is not an object; fix it, then try again`);
    }
    const current = (permissions as Record<string, unknown>)[action] ?? [];
    if (!Array.isArray(current)) throw new Error(`${file}: "permissions.${action}" is not a list`);
    const next = change(current.filter((entry): entry is string => typeof entry === 'string'));
    if (next === undefined) return undefined;
    settings.permissions = { ...permissions, [action]: next };
    return settings;
  });
}

/** Adds `rule` to the `action` list of `file` (once). Contract: throws naming the file. */
export function addRuleToFile(file: string, action: RuleAction, rule: string): void {
  edit(file, (list) => (list.includes(rule) ? undefined : [...list, rule]), action);
}

/** Removes `rule` from the `action` list of `file`; false when it was not there. */
export function removeRuleFromFile(file: string, action: RuleAction, rule: string): boolean {
  let removed = false;
  edit(
    file,
    (list) => {
      const next = list.filter((entry) => entry.trim() !== rule);
      removed = next.length !== list.length;
      return removed ? next : undefined;
    },
    action,
  );
  return removed;
}
