// Commands whose real work cannot be read from their words: they run other commands (wrappers,
// shells given a string, find -exec, xargs), run code from data (eval, source, trap, let), or
// change how later names resolve (alias, hash, enable). No allow rule can cover them.
import { textOf, type Word } from './words.js';

/** Run the command that their arguments name: `sudo rm x`, `timeout 5 rm x`. */
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'su',
  'runuser',
  'env',
  'nice',
  'nohup',
  'timeout',
  'time',
  'stdbuf',
  'ionice',
  'chroot',
  'chrt',
  'taskset',
  'setsid',
  'unshare',
  'nsenter',
  'flock',
  'script',
  'watch',
  'strace',
  'ltrace',
  'xargs',
  'parallel',
  'busybox',
  'command',
  'builtin',
  'exec',
  'coproc',
  'caffeinate',
  'firejail',
  'bwrap',
  'systemd-run',
]);

/** Run code they are given as data, or change what names mean for the commands after them. */
const CODE_FROM_DATA = new Map([
  ['eval', 'eval runs a string as shell code'],
  ['source', 'source runs a file as shell code'],
  ['.', '. runs a file as shell code'],
  ['trap', 'trap runs a string as shell code later'],
  ['let', 'let evaluates arithmetic, which can run code through array subscripts'],
  ['alias', 'alias changes what a command name means'],
  ['unalias', 'unalias changes what a command name means'],
  ['hash', 'hash can point a command name at another program'],
  ['enable', 'enable can load or hide builtins'],
  ['fc', 'fc runs commands from the history'],
  ['bind', 'bind can run shell code'],
  ['complete', 'complete can run shell code'],
  ['compgen', 'compgen can run shell code'],
  ['mapfile', 'mapfile can run a callback'],
  ['readarray', 'readarray can run a callback'],
]);

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Commands after which relative paths no longer resolve against the project. */
export const DIRECTORY_CHANGERS = new Set(['cd', 'pushd', 'popd']);

export interface CommandKind {
  /** Why no allow rule can cover the command; undefined when its words say what it does. */
  undecidable?: string;
  /** Scripts given as literal strings (`bash -c '...'`, `eval '...'`), checked on their own. */
  scripts: string[];
}

const baseName = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/** Classifies a command by its words (assignments first, then the name). */
export function classify(words: readonly Word[], nameIndex: number): CommandKind {
  const nameWord = words[nameIndex];
  const name = textOf(nameWord);
  if (nameWord === undefined) return { scripts: [] };
  if (name === undefined) {
    return { undecidable: 'the command name is only known when it runs', scripts: [] };
  }
  const base = baseName(name);
  const args = words.slice(nameIndex + 1);
  const reason = CODE_FROM_DATA.get(base);
  if (reason) {
    const scripts = base === 'eval' ? literalJoin(args) : [];
    return { undecidable: reason, scripts };
  }
  if (SHELLS.has(base)) {
    const flag = args.findIndex((word) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(textOf(word) ?? ''));
    if (flag >= 0) {
      const script = textOf(args[flag + 1]);
      return {
        undecidable: `${base} -c runs a string as shell code`,
        scripts: script === undefined ? [] : [script],
      };
    }
    if (args.some((word) => textOf(word)?.startsWith('-') !== true)) {
      return { undecidable: `${base} runs a script file`, scripts: [] };
    }
    return { undecidable: `${base} reads shell code from its input`, scripts: [] };
  }
  if (WRAPPERS.has(base)) return { undecidable: `${base} runs another command`, scripts: [] };
  if (base === 'find' && args.some((word) => FIND_EXEC.has(textOf(word) ?? ''))) {
    return { undecidable: 'find -exec runs another command', scripts: [] };
  }
  return { scripts: [] };
}

/** `eval 'a' 'b'` runs "a b"; only when every argument is known. */
function literalJoin(args: readonly Word[]): string[] {
  const texts = args.map(textOf);
  return texts.every((text) => text !== undefined) ? [texts.join(' ')] : [];
}

/**
 * Where a wrapped command may start: every later word (`sudo -u root rm x` has `rm x` at its
 * third). Deny and ask rules are tried at each, so a wrapper cannot hide a denied command.
 */
export function wrappedStarts(words: readonly Word[], nameIndex: number): number[] {
  const starts: number[] = [];
  for (let i = nameIndex + 1; i < words.length; i++) starts.push(i);
  return starts;
}
