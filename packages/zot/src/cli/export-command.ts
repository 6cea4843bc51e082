// `zot export [<session>] [--html|--md] [-o FILE]`: a session as one self-contained HTML page or
// as Markdown (docs/export.md).
import { resolve } from 'node:path';
import { zotPaths } from '../config/paths.js';
import {
  printFailure,
  printHelp,
  writeData,
  writeDiagnostic,
  writeLine,
  type ModeIO,
} from '../modes/io.js';
import {
  defaultExportName,
  documentOfFile,
  findSessionFile,
  formatOfPath,
  messageCount,
  renderExport,
  writeExport,
  type ExportFormat,
} from '../session/export/export-file.js';
import { newestSession } from '../session/store.js';
import { UsageError } from '../util/errors.js';
import { terminalSafe } from '../util/terminal-text.js';
import type { CliOptions } from './args.js';

export const EXPORT_HELP = `Usage: zot export [<session>] [--html | --md] [-o <file>] [--cwd <dir>]

Writes a session as one self-contained HTML page (it loads nothing from the network: tool calls
fold open, edits show as coloured diffs, images are inline) or as Markdown that keeps every
prompt, answer and tool output exactly.

  <session>        a session file, or the id of one of the directory's sessions (its file name,
                   or the random part after the "_"); default: the directory's newest session
  --html           an HTML page (the default, unless -o ends in .md or .markdown)
  --md             Markdown
  -o, --output <file>
                   where to write it; "-" is stdout. Default: Markdown goes to stdout, HTML to
                   zot-session-<id>.html in the current directory (a terminal is shown the
                   Markdown with its control characters escaped)
  --cwd <dir>      the directory whose sessions are meant (default: the current one)

Exit codes: 0 written, 1 no such session or it could not be read or written, 2 usage error.
`;

interface ExportArgs {
  session?: string;
  format?: ExportFormat;
  output?: string;
  cwd: string;
}

function parseExportArgs(options: CliOptions): ExportArgs | 'help' {
  const args = [...options.commandArgs];
  const parsed: ExportArgs = { cwd: resolve(options.cwd ?? process.cwd()) };
  const value = (flag: string, at: number) => {
    const next = args[at];
    if (next === undefined || (next.startsWith('-') && next !== '-'))
      throw new UsageError(`export: ${flag} needs a value (see zot export --help)`);
    return next;
  };
  const setFormat = (format: ExportFormat) => {
    if (parsed.format !== undefined && parsed.format !== format)
      throw new UsageError('export: give --html or --md, not both');
    parsed.format = format;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    else if (arg === '--html') setFormat('html');
    else if (arg === '--md' || arg === '--markdown') setFormat('md');
    else if (arg === '-o' || arg === '--output') parsed.output = value(arg, ++i);
    else if (arg === '--cwd') parsed.cwd = resolve(value(arg, ++i));
    else if (!arg.startsWith('-') && parsed.session === undefined) parsed.session = arg;
    else throw new UsageError(`export: unexpected argument ${arg} (see zot export --help)`);
  }
  return parsed;
}

export async function runExportCommand(options: CliOptions, io: ModeIO): Promise<number> {
  const args = parseExportArgs(options);
  if (args === 'help') return printHelp(io, EXPORT_HELP);
  const fail = (message: string) => printFailure(io, message);
  const paths = zotPaths();
  try {
    const file = args.session
      ? findSessionFile(args.session, paths.sessions, args.cwd)
      : newestSession(paths.sessions, args.cwd);
    if (!file) return fail(`no session of ${args.cwd} to export (name one: zot export <file>)`);
    const format =
      args.format ??
      (args.output !== undefined && args.output !== '-' ? formatOfPath(args.output) : 'html');
    const doc = documentOfFile(file);
    for (const warning of doc.warnings) writeDiagnostic(io.stderr, `zot: warning: ${warning}`);
    const text = renderExport(doc, format);
    const output = args.output ?? (format === 'md' ? '-' : defaultExportName(file, format));
    if (output === '-') {
      writeData(io.stdout, text);
      return 0;
    }
    const target = resolve(output);
    writeExport(target, text);
    writeLine(
      io.stdout,
      terminalSafe(`exported ${messageCount(doc)} messages of ${file} to ${target}`),
    );
    return 0;
  } catch (error) {
    return fail((error as Error).message);
  }
}
