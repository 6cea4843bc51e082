// The read tool: a text file with line numbers, an image as an image block, other binaries refused.
import { promises as fsp } from 'node:fs';
import type { Tool, ToolOutput } from '../agent/tool.js';
import { errorMessage } from '../util/errors.js';
import { formatBytes } from '../util/truncate.js';
import {
  errorOutput,
  resolvePath,
  stringArg,
  textOutput,
  tryFs,
  type FileGuard,
  type FileRoute,
  type FileToolOptions,
} from './common.js';
import { SNIFF_BYTES, sniffFile } from './file-kind.js';
import { readLineWindow, type WindowLine } from './read-lines.js';
import { argsValidator } from './arg-validators.js';

export interface ReadToolOptions extends FileToolOptions {
  /** Lines returned when the call gives no `limit` (default 2000). */
  maxLines?: number;
  /** Longer lines are cut with a marker (default 2000 characters). */
  maxLineChars?: number;
  /** Cap on the text returned (default 50 KB). */
  maxBytes?: number;
  /** Larger images are refused (default 5 MB, the smallest provider limit). */
  maxImageBytes?: number;
}

interface ReadLimits {
  maxLines: number;
  maxLineChars: number;
  maxBytes: number;
  maxImageBytes: number;
  homeDir: string | undefined;
  guard: FileGuard | undefined;
  route: FileRoute | undefined;
}

export function createReadTool(options: ReadToolOptions = {}): Tool {
  const limits: ReadLimits = {
    maxLines: options.maxLines ?? 2000,
    maxLineChars: options.maxLineChars ?? 2000,
    maxBytes: options.maxBytes ?? 50 * 1024,
    maxImageBytes: options.maxImageBytes ?? 5 * 1024 * 1024,
    homeDir: options.homeDir,
    guard: options.guard,
    route: options.route,
  };
  return {
    name: 'read',
    limitsOwnOutput: true,
    description:
      `Read a file. Text comes back with line numbers (number, tab, line), at most ` +
      `${limits.maxLines} lines or ${formatBytes(limits.maxBytes)} per call; use offset and ` +
      `limit to page through long files. PNG, JPEG, GIF and WebP images come back as images. ` +
      `Other binary files are refused; use bash for them, and for directories.`,
    argsValidator: argsValidator('read'),
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to read, relative to the working directory or absolute (~ expands)',
        },
        offset: { type: 'integer', minimum: 1, description: 'First line to read, 1-based' },
        limit: {
          type: 'integer',
          minimum: 1,
          description: `Maximum number of lines to read (default ${limits.maxLines})`,
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    preview(args) {
      const path = stringArg(args, 'path');
      const offset = typeof args.offset === 'number' ? args.offset : undefined;
      const limit = typeof args.limit === 'number' ? args.limit : undefined;
      if (offset === undefined && limit === undefined) return path;
      const from = offset ?? 1;
      return `${path}:${from}-${limit === undefined ? '' : from + limit - 1}`;
    },
    execute: (args, context) => readTool(args, context.cwd, limits),
  };
}

function positiveInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

async function readTool(
  args: Record<string, unknown>,
  cwd: string,
  limits: ReadLimits,
): Promise<ToolOutput> {
  const path = stringArg(args, 'path');
  if (path === '') return errorOutput('read: path is empty');
  for (const key of ['offset', 'limit']) {
    if (args[key] !== undefined && !positiveInteger(args[key])) {
      const got = JSON.stringify(args[key]);
      return errorOutput(`read: ${key} must be a whole number >= 1, got ${got} (${path})`);
    }
  }
  const offset = (args.offset as number | undefined) ?? 1;
  const limit = (args.limit as number | undefined) ?? limits.maxLines;
  const abs = resolvePath(cwd, path, limits.homeDir);
  const denied = limits.guard?.('read', abs, 'read');
  if (denied) return errorOutput(denied);

  const info = await tryFs('read', path, () => fsp.stat(abs));
  if (!info.ok) return info.output;
  if (info.value.isDirectory()) {
    return errorOutput(`read: ${path} is a directory; use bash (e.g. ls) to list it`);
  }
  if (!info.value.isFile()) return errorOutput(`read: ${path} is not a regular file`);

  const head = await tryFs('read', path, () => readHead(abs));
  if (!head.ok) return head.output;
  // Trust the bytes, not stat: files under /proc report size 0 but have content.
  if (head.value.length === 0) {
    return {
      ...textOutput(`${path} is empty (0 bytes)`),
      details: { kind: 'read', path, total_lines: 0 },
    };
  }

  const kind = sniffFile(head.value);
  if (kind.kind === 'binary') {
    return errorOutput(
      `read: ${path} is a binary file (${info.value.size} bytes); ` +
        `use bash (e.g. xxd, file) to inspect it`,
    );
  }
  if (kind.kind === 'image') {
    const size = info.value.size;
    if (size > limits.maxImageBytes) {
      return errorOutput(
        `read: ${path} is a ${kind.label} image of ${formatBytes(size)}, over the ` +
          `${formatBytes(limits.maxImageBytes)} limit for images; shrink it first (e.g. with bash)`,
      );
    }
    const data = await tryFs('read', path, () => fsp.readFile(abs));
    if (!data.ok) return data.output;
    return {
      content: [
        { type: 'text', text: `Read image ${path} (${kind.mimeType}, ${size} bytes)` },
        { type: 'image', mime_type: kind.mimeType, data: data.value.toString('base64') },
      ],
      isError: false,
      details: { kind: 'read', path, mime_type: kind.mimeType },
    };
  }

  // The editor's buffer (unsaved changes included) when an editor is connected.
  const fromEditor = limits.route?.editor?.readText;
  let source: string | Buffer = abs;
  if (fromEditor) {
    try {
      source = Buffer.from(await fromEditor(abs), 'utf8');
    } catch (error) {
      return errorOutput(`read: the editor could not read ${path}: ${errorMessage(error)}`);
    }
  }
  const window = await tryFs('read', path, () =>
    readLineWindow(source, {
      first: offset,
      count: limit,
      maxLineChars: limits.maxLineChars,
      maxKeptBytes: limits.maxBytes + limits.maxLineChars * 4,
    }),
  );
  if (!window.ok) return window.output;
  const { lines, totalLines } = window.value;
  if (offset > totalLines) {
    return errorOutput(
      `read: offset ${offset} is past the end of ${path} (${totalLines} lines); ` +
        `use an offset from 1 to ${totalLines}`,
    );
  }
  const shown = formatLines(lines, offset, totalLines, limits);
  const range = { first_line: offset, last_line: offset + shown.count - 1 };
  const details = { kind: 'read', path, total_lines: totalLines, ...range } as const;
  return { ...textOutput(shown.text), details };
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await fsp.open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Numbered lines (right-aligned number, tab, line) within `maxBytes`, and a note saying
 * where to continue when lines remain; `count` is how many lines it shows.
 * Contract: shows at least one line, so paging always advances.
 */
export function formatLines(
  lines: WindowLine[],
  offset: number,
  totalLines: number,
  limits: Pick<ReadLimits, 'maxBytes' | 'maxLineChars'>,
): { text: string; count: number } {
  const width = String(offset + lines.length - 1).length;
  const out: string[] = [];
  let bytes = 0;
  let capped = false;
  for (const [i, line] of lines.entries()) {
    const marker = line.cut
      ? ` [... line cut at ${limits.maxLineChars} characters; the whole line is ${line.bytes} bytes]`
      : '';
    const text = `${String(offset + i).padStart(width)}\t${line.text}${marker}`;
    const size = Buffer.byteLength(text) + 1;
    if (out.length > 0 && bytes + size > limits.maxBytes) {
      capped = true;
      break;
    }
    bytes += size;
    out.push(text);
  }
  const count = out.length;
  const next = offset + count;
  const remaining = totalLines - next + 1;
  if (remaining > 0) {
    const cap = capped ? `output capped at ${formatBytes(limits.maxBytes)}; ` : '';
    const lines = remaining === 1 ? 'line' : 'lines';
    out.push('', `[... ${cap}${remaining} more ${lines}; continue with offset=${next}]`);
  }
  return { text: out.join('\n'), count };
}
