// A new store's first checkpoint of a repository would compress and write every file. Most of
// them are already objects in the user's repository, named by its index: those are copied into
// the store first (pack-objects there, index-pack here, which hashes every object it receives,
// so nothing is taken on trust), and git, storing the files, then finds them present and only
// hashes each. The copies are the store's own: nothing depends on the user's objects later.
// In the user's repository this runs `ls-files` and `pack-objects --stdout`, both read-only.
import { launchProcess } from '../../security/launcher.js';
import { gitEnvironment, nulList, runGit, FIXED_CONFIG } from './git.js';

/** Fewer stored files than this are not worth the two extra processes. */
export const MIN_SEEDED_FILES = 200;

/**
 * The blob ids the index of the repository at `root` gives `paths` (stage 0, files and links
 * only). Contract: rejects with a GitError.
 */
async function indexedBlobs(root: string, paths: ReadonlySet<string>): Promise<string[]> {
  const out = await runGit({ args: ['ls-files', '-s', '-z'], cwd: root });
  const ids = new Set<string>();
  for (const item of nulList(out)) {
    // "mode id stage\tpath"
    const tab = item.indexOf('\t');
    const [mode, id, stage] = item.slice(0, tab).split(' ');
    if (stage !== '0' || !/^[0-9a-f]{40}$/.test(id ?? '')) continue;
    if (mode !== '100644' && mode !== '100755' && mode !== '120000') continue;
    if (paths.has(item.slice(tab + 1))) ids.add(id!);
  }
  return [...ids];
}

/**
 * Copies into the store at `gitDir` the blobs the repository at `root` holds for `paths`,
 * receiving at most `maxBytes` of pack. Contract: never rejects; resolves how many objects were
 * asked for, or 0 when nothing was copied (the checkpoint then stores every file itself).
 */
export async function seedFromRepository(
  root: string,
  gitDir: string,
  paths: ReadonlySet<string>,
  maxBytes: number,
): Promise<number> {
  let ids: string[];
  try {
    ids = await indexedBlobs(root, paths);
  } catch {
    return 0;
  }
  if (ids.length === 0) return 0;
  return new Promise((resolve) => {
    let source;
    let sink;
    try {
      const spawn = (args: string[], git?: Record<string, string>) =>
        launchProcess({
          argv: ['git', ...FIXED_CONFIG, ...args],
          cwd: root,
          env: gitEnvironment(git),
          stdio: ['pipe', 'pipe', 'ignore'],
          detached: false,
          policy: { scrubEnv: (env) => env },
        }).child;
      // No delta search (--window=0): the point is to copy, and compression is the cheapest.
      source = spawn(['-c', 'pack.compression=1', 'pack-objects', '--stdout', '-q', '--window=0']);
      sink = spawn(['index-pack', '--stdin'], { GIT_DIR: gitDir });
    } catch {
      source?.kill('SIGKILL');
      resolve(0);
      return;
    }
    const from = source;
    const to = sink;
    let received = 0;
    let failed = false;
    let left = 2;
    const fail = () => {
      failed = true;
      from.kill('SIGKILL');
      to.kill('SIGKILL');
    };
    const exited = (code: number | null) => {
      if (code !== 0 && !failed) fail();
      if (--left === 0) resolve(failed ? 0 : ids.length);
    };
    from.on('error', fail);
    to.on('error', fail);
    from.stdin!.on('error', fail);
    to.stdin!.on('error', fail);
    from.on('close', exited);
    to.on('close', exited);
    to.stdout!.resume();
    from.stdout!.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return fail();
      if (!to.stdin!.write(chunk)) {
        from.stdout!.pause();
        to.stdin!.once('drain', () => from.stdout!.resume());
      }
    });
    from.stdout!.on('end', () => to.stdin!.end());
    from.stdin!.end(ids.map((id) => `${id}\n`).join(''));
  });
}
