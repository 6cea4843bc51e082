// Approvals of project `.mcp.json` files. A project's `.mcp.json` names programs to run, so it
// is code: its servers start only after the user approved that exact file, pinned to the
// sha256 of its bytes. Any change to the file withdraws the approval until it is given again.
//
// Approvals live in `$ZOT_HOME/mcp-trust.json`, beside the user's own `mcp.json`: a file the
// project cannot ship or write, wherever this extension itself was loaded from.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Approval {
  readonly sha256: string;
  readonly approvedAt: string;
}

interface Store {
  version: 1;
  /** By absolute path of the `.mcp.json` file. */
  projects: Record<string, Approval>;
}

const MAX_STORE_BYTES = 4 * 1024 * 1024;

export const trustStorePath = (home: string) => join(home, 'mcp-trust.json');

function load(path: string): Store {
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_STORE_BYTES) return { version: 1, projects: {} };
    const doc = JSON.parse(text) as Partial<Store>;
    if (
      doc &&
      typeof doc.projects === 'object' &&
      doc.projects !== null &&
      !Array.isArray(doc.projects)
    ) {
      return { version: 1, projects: doc.projects };
    }
  } catch {
    // missing or unreadable: nothing approved
  }
  return { version: 1, projects: {} };
}

function save(path: string, store: Store): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(store, null, 2) + '\n', { mode: 0o600 });
  renameSync(temp, path);
}

/** Whether `file` was approved with exactly these bytes. */
export function isApproved(storePath: string, file: string, sha256: string): boolean {
  const approval = load(storePath).projects[file];
  return typeof approval?.sha256 === 'string' && approval.sha256 === sha256;
}

export function approve(storePath: string, file: string, sha256: string): void {
  const store = load(storePath);
  store.projects[file] = { sha256, approvedAt: new Date().toISOString() };
  save(storePath, store);
}

/** Returns whether there was an approval to withdraw. */
export function withdraw(storePath: string, file: string): boolean {
  const store = load(storePath);
  if (!(file in store.projects)) return false;
  delete store.projects[file];
  save(storePath, store);
  return true;
}
