// What each extension registered in its last run, so that a print or JSON run need not wait for
// an extension to start before its first model request: its tools are offered from this memory
// until it is ready. An entry is keyed by a hash of everything that decides what the extension
// registers and that zot can see: its manifest, its command line, the state of every file in its
// directory (a stat pin: path, kind, size, mode, inode, mtime and ctime, so any write changes it),
// its environment, the content of the files its manifest names in `registration_inputs` (the MCP
// bridge's configuration and tool cache), the project directory and the hello_ack it will get
// (zot version, provider, model). A changed key means the memory is not used (the extension is
// waited for, as on a first run).
//
// Entries are kept by remembered-store.ts (private files, bounded, sealed). Every registration
// read back goes through the checks a register frame goes through; a tool schema's meta-schema
// check only when the entry is not sealed (one zot neither wrote nor checked in full).
import {
  lstat as lstatLater,
  readdir as readdirLater,
  readFile as readFileLater,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { nodeCrypto } from '../util/builtins.js';
import { sha256Of } from '../util/digest.js';
import {
  checkCommand,
  checkSubscription,
  checkTool,
  REGISTRATION_LIMITS,
  schemaCheckLoaded,
  type Registrations,
} from './registrations.js';
import { isSealed, MEMORY_LIMITS, readEntry, sealEntry } from './remembered-store.js';

export { MEMORY_LIMITS, memoryDir, writeMemory } from './remembered-store.js';

const VERSION = 1;

/** What decides the key, besides the directory's files. */
export interface MemoryIdentity {
  home: string;
  dir: string;
  /** The manifest as parsed (every field that changes how it runs). */
  manifest: unknown;
  command: string;
  args: readonly string[];
  /** Its environment (registrations may depend on a variable being set). */
  env: NodeJS.ProcessEnv;
  /** Absolute paths of its manifest's `registration_inputs`. */
  inputs: readonly string[];
  cwd: string;
  hello: { zot_version: string; provider: string; model: string };
}

// The walks below use node:fs's callbacks: node:fs/promises costs a run about 2 ms to load, and
// nothing else a run does before its first model request needs it.
const settle = <T>(start: (done: (error: Error | null, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) =>
    start((error, value) => (error ? reject(error) : resolve(value))),
  );
const readdir = (path: string) => settle<string[]>((done) => readdirLater(path, done));
const lstat = (path: string) => settle<Stats>((done) => lstatLater(path, done));
const lstatExact = (path: string) =>
  settle<BigIntStats>((done) => lstatLater(path, { bigint: true }, done));
const readFile = (path: string) => settle<Buffer>((done) => readFileLater(path, done));

/**
 * A pin of every entry below `dir` (top-level `.git` left out) from lstat alone: a file written
 * since changes its ctime, which no one can set back. Undefined when the tree cannot be walked or
 * is bigger than MEMORY_LIMITS.pinEntries. Asynchronous: the walk runs off zot's main thread
 * while the extension starts. Contract: never rejects.
 */
export async function statPin(dir: string): Promise<string | undefined> {
  const hash = nodeCrypto().createHash('sha256');
  let count = 0;
  const pending: string[] = [''];
  try {
    while (pending.length > 0) {
      const rel = pending.pop()!;
      const names = (await readdir(rel === '' ? dir : join(dir, rel))).sort();
      const stats = await Promise.all(names.map((name) => lstatExact(join(dir, rel, name))));
      for (let i = 0; i < names.length; i++) {
        const path = rel === '' ? names[i]! : `${rel}/${names[i]}`;
        if (path === '.git') continue;
        if (++count > MEMORY_LIMITS.pinEntries) return undefined;
        const s = stats[i]!;
        hash.update(
          `${JSON.stringify(path)} ${s.mode} ${s.size} ${s.ino} ${s.mtimeNs} ${s.ctimeNs}\n`,
        );
        if (s.isDirectory()) pending.push(path);
      }
    }
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}

/**
 * A pin of the content of `paths` (files, or directories of files, one level): what an
 * extension's manifest says its registrations are made from. Content, not times: a program may
 * touch a file it reads without changing it. Undefined past MEMORY_LIMITS. Contract: never rejects.
 */
export async function contentPin(paths: readonly string[]): Promise<string | undefined> {
  const hash = nodeCrypto().createHash('sha256');
  let bytes = 0;
  const file = async (path: string): Promise<boolean> => {
    const content = await readFile(path);
    bytes += content.length;
    if (bytes > MEMORY_LIMITS.inputBytes) return false;
    hash.update(`${JSON.stringify(path)} ${content.length}\n`).update(content);
    return true;
  };
  try {
    for (const path of paths) {
      const stat = await lstat(path).catch(() => undefined);
      if (stat === undefined) hash.update(`${JSON.stringify(path)} missing\n`);
      else if (stat.isFile()) {
        if (!(await file(path))) return undefined;
      } else if (stat.isDirectory()) {
        const names = (await readdir(path)).sort();
        if (names.length > MEMORY_LIMITS.inputEntries) return undefined;
        hash.update(`${JSON.stringify(path)} dir ${names.length}\n`);
        for (const name of names) {
          const entry = join(path, name);
          if ((await lstat(entry)).isFile()) {
            if (!(await file(entry))) return undefined;
          } else hash.update(`${JSON.stringify(entry)} other\n`);
        }
      } else return undefined;
    }
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}

/** The key of an extension's memory, or undefined when its files cannot be pinned. */
export async function memoryKey(identity: MemoryIdentity): Promise<string | undefined> {
  const [pin, inputs] = await Promise.all([statPin(identity.dir), contentPin(identity.inputs)]);
  if (pin === undefined || inputs === undefined) return undefined;
  const { manifest, command, args, cwd, hello } = identity;
  const env = Object.entries(identity.env)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Of(
    JSON.stringify([VERSION, identity.dir, manifest, command, args, env, cwd, hello, pin, inputs]),
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

/**
 * The registrations of an entry, each checked as its register frame would be, or why not;
 * `sealed`: the entry is one zot wrote or checked, so its schemas were checked then. 'unloaded':
 * its schemas must be checked and the check is not loaded yet (see readMemory).
 */
function registrationsOf(doc: unknown, key: string, sealed: boolean): Registrations | string {
  if (!isObject(doc) || doc.version !== VERSION || doc.key !== key) return 'stale';
  const { tools, commands } = doc;
  if (!sealed && Array.isArray(tools) && tools.length > 0 && !schemaCheckLoaded())
    return 'unloaded';
  const events = strings(doc.events);
  const intercepts = strings(doc.intercepts);
  if (!Array.isArray(tools) || tools.length > REGISTRATION_LIMITS.toolsPerExtension)
    return 'its tools are not a list within the limit';
  if (!Array.isArray(commands) || commands.length > REGISTRATION_LIMITS.commandsPerExtension)
    return 'its commands are not a list within the limit';
  if (!events || !intercepts || events.length > 64 || intercepts.length > 64)
    return 'its subscriptions are not lists of names';
  const out: Registrations = {
    tools: new Map(),
    commands: new Map(),
    events: new Set(),
    intercepts: new Set(),
  };
  for (const tool of tools) {
    if (!isObject(tool) || typeof tool.name !== 'string') return 'a tool without a name';
    if (tool.description !== undefined && typeof tool.description !== 'string')
      return `tool ${JSON.stringify(tool.name.slice(0, 64))}: a description that is not text`;
    const checked = checkTool(
      {
        type: 'register_tool',
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        ...(isObject(tool.schema) ? { schema: tool.schema } : {}),
        deferred: tool.deferred === true,
      } as Parameters<typeof checkTool>[0],
      { schemaChecked: sealed },
    );
    if (typeof checked === 'string') return checked;
    out.tools.set(checked.name, checked);
  }
  for (const command of commands) {
    if (!isObject(command) || typeof command.name !== 'string') return 'a command without a name';
    const description = typeof command.description === 'string' ? command.description : '';
    const checked = checkCommand({ type: 'register_command', name: command.name, description });
    if (typeof checked === 'string') return checked;
    out.commands.set(checked.name.toLowerCase(), checked);
  }
  const subscription = checkSubscription(events, intercepts);
  if (subscription.problems.length > 0) return subscription.problems[0]!;
  out.events = subscription.accepted.events;
  out.intercepts = subscription.accepted.intercept;
  return out;
}

export interface MemoryRead {
  registrations?: Registrations;
  /**
   * The entry is not sealed, so its tool schemas must be checked: await loadSchemaCheck()
   * (registrations.ts) and read it again.
   */
  needsSchemaCheck?: true;
  /** Why an entry that exists was not used (for the extension's log). */
  problem?: string;
}

/**
 * The registrations remembered for the extension in `dir` under `key`; nothing when there is no
 * entry or it was made for another key; `needsSchemaCheck` when the entry must be checked in
 * full and the schema check is not loaded yet. Contract: never throws.
 */
export function readMemory(home: string, dir: string, key: string): MemoryRead {
  const entry = readEntry(home, dir);
  if (!('doc' in entry)) return entry;
  const sealed = isSealed(home, entry);
  const registrations = registrationsOf(entry.doc, key, sealed);
  if (registrations === 'stale') return {};
  if (registrations === 'unloaded') return { needsSchemaCheck: true };
  if (typeof registrations === 'string')
    return { problem: `${entry.path}: ${registrations}; not used` };
  // Checked in full now (an entry of an earlier zot): the next run need not check it again.
  if (!sealed) sealEntry(home, entry);
  return { registrations };
}

/**
 * Whether the extension in `dir` may be held back before its key is known: its entry says it
 * intercepts and observes nothing, and its manifest does not make it a guard whose failures
 * block. Only a guess: the entry counts once its key matches (readMemory); until then nothing
 * is offered from it. Contract: never throws; anything unreadable is `false`.
 */
export function mayHoldBack(home: string, dir: string, interceptFailure: string): boolean {
  if (interceptFailure === 'block') return false;
  const entry = readEntry(home, dir);
  if (!('doc' in entry) || !isObject(entry.doc)) return false;
  const { events, intercepts } = entry.doc;
  return (
    Array.isArray(events) &&
    events.length === 0 &&
    Array.isArray(intercepts) &&
    intercepts.length === 0
  );
}

/** The entry's text for `registrations` (sorted, so the same registrations give the same text). */
export function memoryText(key: string, name: string, registrations: Registrations): string {
  const byName = <T extends { name: string }>(items: Iterable<T>) =>
    [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return JSON.stringify({
    version: VERSION,
    key,
    name,
    tools: byName(registrations.tools.values()).map(({ name, description, schema, deferred }) => ({
      name,
      description,
      schema,
      ...(deferred ? { deferred } : {}),
    })),
    commands: byName(registrations.commands.values()).map(({ name, description }) => ({
      name,
      description,
    })),
    events: [...registrations.events].sort(),
    intercepts: [...registrations.intercepts].sort(),
  });
}

/**
 * Whether a run may go ahead without waiting for an extension that registered `remembered` last
 * time: only when it intercepts and observes nothing (a guard or an observer must be in place
 * before the first model request) and its manifest does not make it a guard whose failures
 * block. Contract: pure.
 */
export function mayGoAhead(
  remembered: Registrations | undefined,
  interceptFailure: string,
): boolean {
  if (!remembered || interceptFailure === 'block') return false;
  return remembered.intercepts.size === 0 && remembered.events.size === 0;
}
