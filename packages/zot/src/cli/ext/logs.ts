// `zot ext logs <name> [-f]`: prints an extension's log; -f follows appended output.
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { extensionLogPath } from '../../extensions/log.js';
import { isInside } from '../../ext-setup/manifest.js';
import { checkExtensionName } from '../../ext-setup/names.js';
import { errorMessage } from '../../util/errors.js';
import { terminalSafeBlock } from '../../util/terminal-text.js';
import {
  fail,
  info,
  nameArgument,
  parseOptions,
  type ExtCommand,
  type ExtContext,
} from './common.js';

type Opened = { ok: true; fd: number; path: string } | { ok: false; error: string };

/**
 * Opens `$ZOT_HOME/logs/ext-<name>.log` for reading. The name is checked, and the file must be
 * a regular file that resolves inside the logs directory (a planted symlink is refused).
 * Contract: never throws.
 */
export function openLog(logsDir: string, name: string): Opened {
  const nameError = checkExtensionName(name);
  if (nameError) return { ok: false, error: nameError };
  const path = extensionLogPath(logsDir, name);
  try {
    const real = realpathSync(path);
    if (!isInside(realpathSync(logsDir), real)) {
      return { ok: false, error: `${path} points outside ${logsDir}; refused` };
    }
    if (!statSync(real).isFile()) return { ok: false, error: `${path} is not a regular file` };
    return { ok: true, fd: openSync(real, 'r'), path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return {
        ok: false,
        error: `no log for ${name}: ${path} does not exist (an extension's log is written when it first starts)`,
      };
    }
    return { ok: false, error: `cannot open ${path}: ${errorMessage(error)}` };
  }
}

/**
 * Where log bytes go: unchanged into a pipe or file (the log is data), but escaped on a
 * terminal, since an extension writes its own stderr and could otherwise drive the terminal.
 */
function logSink(stdout: NodeJS.WritableStream & { isTTY?: boolean }): (bytes: Buffer) => Buffer {
  if (!stdout.isTTY) return (bytes) => bytes;
  // Decoded across reads, so that a character split between two chunks stays one character.
  const decoder = new StringDecoder('utf8');
  return (bytes) => Buffer.from(terminalSafeBlock(decoder.write(bytes)));
}

/** Copies bytes [position, end of file) through `sink` to stdout; returns the new position. */
async function pump(
  fd: number,
  position: number,
  stdout: NodeJS.WritableStream,
  sink: (bytes: Buffer) => Buffer,
): Promise<number> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) return position;
    position += read;
    if (!stdout.write(sink(Buffer.from(buffer.subarray(0, read))))) await once(stdout, 'drain');
  }
}

/** Follows the file until SIGINT/SIGTERM; a truncated log is re-read from its start. */
async function follow(
  context: ExtContext,
  fd: number,
  path: string,
  start: number,
  sink: (bytes: Buffer) => Buffer,
): Promise<void> {
  let position = start;
  let busy = false;
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearInterval(timer);
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    const tick = async () => {
      if (busy) return;
      busy = true;
      try {
        const size = fstatSync(fd).size;
        if (size < position) {
          info(context, `(${path} was truncated; following from its start)`);
          position = 0;
        }
        if (size > position) position = await pump(fd, position, context.stdout, sink);
      } catch (error) {
        info(context, `zot: stopped following ${path}: ${errorMessage(error)}`);
        stop();
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void tick(), 100);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const logsCommand: ExtCommand = {
  name: 'logs',
  help: `Usage: zot ext logs <name> [-f]

Prints $ZOT_HOME/logs/ext-<name>.log: the extension's stderr plus zot's notes
about it (load failures, conflicts, dropped frames). Into a pipe or file the log
is copied unchanged; on a terminal, control characters and escape sequences are
shown escaped (e.g. \\x1b), since the extension wrote them.

Options:
  -f, --follow   keep printing appended output until interrupted (Ctrl+C)
`,
  async run(args, context) {
    const parsed = parseOptions('logs', args, [{ names: ['-f', '--follow'], kind: 'bool' }]);
    const name = nameArgument('logs', parsed);
    const opened = openLog(context.paths.logs, name);
    if (!opened.ok) return fail(context, opened.error);
    try {
      const sink = logSink(context.stdout);
      const end = await pump(opened.fd, 0, context.stdout, sink);
      if (parsed.flags.has('--follow')) await follow(context, opened.fd, opened.path, end, sink);
    } finally {
      closeSync(opened.fd);
    }
    return 0;
  },
};
