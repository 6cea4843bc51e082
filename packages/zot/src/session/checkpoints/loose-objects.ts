// Objects and refs written into zot's own store without starting git: an object is a
// zlib-compressed loose file and a ref a one-line file, both in formats git documents and reads.
// A checkpoint's commit, its ref, the trees of the directories that changed and the blobs of a
// few changed files are written this way, saving a process start each; a store whose objects
// are not SHA-1 (an init.defaultObjectFormat of sha256) is left to git.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nodeCrypto, nodeZlib } from '../../util/builtins.js';

/** Whether the store at `gitDir` names objects by SHA-1 (what zot writes itself). */
export function usesSha1(gitDir: string): boolean {
  try {
    const config = readFileSync(join(gitDir, 'config'), 'utf8');
    const format = /^\s*objectformat\s*=\s*(\S+)/im.exec(config)?.[1];
    return format === undefined || format.toLowerCase() === 'sha1';
  } catch {
    return false;
  }
}

let sequence = 0;

/** Writes `data` to `path` through a temporary file in the same directory, then a rename. */
function writeAtomically(path: string, data: Buffer | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.zot-${process.pid}-${sequence++}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}

/** The id `body` has as a git object of `type` (SHA-1 of the header and the body). */
export function objectId(type: string, body: Buffer): string {
  return nodeCrypto()
    .createHash('sha1')
    .update(`${type} ${body.length}\0`)
    .update(body)
    .digest('hex');
}

/**
 * Writes `body` as a loose object of `type` (blob, tree, commit) unless it is there already;
 * returns its id. Contract: throws on a file system error.
 */
export function writeObject(gitDir: string, type: string, body: Buffer): string {
  const id = objectId(type, body);
  const path = join(gitDir, 'objects', id.slice(0, 2), id.slice(2));
  // The same content is the same object: one already there is kept.
  if (!existsSync(path)) {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    writeAtomically(path, nodeZlib().deflateSync(object, { level: 1 }));
  }
  return id;
}

/**
 * Writes a commit of `tree` with `message` as a loose object; returns its id.
 * Contract: throws on a file system error.
 */
export function writeCommit(
  gitDir: string,
  tree: string,
  message: string,
  now = Date.now(),
): string {
  const seconds = Math.floor(now / 1000);
  const who = `zot <zot@localhost> ${seconds} +0000`;
  return writeObject(
    gitDir,
    'commit',
    Buffer.from(`tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}\n`),
  );
}

/** Points `ref` (refs/zot/...) at `commit`: a loose ref file, replaced atomically. */
export function writeRef(gitDir: string, ref: string, commit: string): void {
  writeAtomically(join(gitDir, ...ref.split('/')), `${commit}\n`);
}
