// The edit tool: exact-text replacements in one file, all or nothing, answered with a diff.
import { promises as fsp } from 'node:fs';
import type { Tool, ToolOutput } from '../agent/tool.js';
import { errorMessage } from '../util/errors.js';
import { errorOutput, fsErrorText, stringArg, textOutput, type FileToolOptions } from './common.js';
import { applyEdits, detectEol, type TextEdit } from './edit-apply.js';
import { diffOf, type DiffOptions } from './edit-diff.js';
import { replaceFile, writableFile } from './write.js';
import { argsValidator } from './arg-validators.js';

export interface EditToolOptions extends DiffOptions, FileToolOptions {}

export function createEditTool(options: EditToolOptions = {}): Tool {
  return {
    name: 'edit',
    limitsOwnOutput: true,
    description:
      'Edit a file by exact text replacement. Each edit replaces oldText with newText; edits ' +
      'apply in order and each oldText must match exactly once (include enough surrounding ' +
      'lines to be unique). If any edit fails, the file is left unchanged. Returns a diff.',
    argsValidator: argsValidator('edit'),
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to edit, relative to the working directory or absolute (~ expands)',
        },
        edits: {
          type: 'array',
          minItems: 1,
          description: 'Replacements, applied in order',
          items: {
            type: 'object',
            properties: {
              oldText: { type: 'string', description: 'Exact text to find; must match once' },
              newText: { type: 'string', description: 'Text to put in its place' },
            },
            required: ['oldText', 'newText'],
            additionalProperties: false,
          },
        },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    },
    preview: (args) => stringArg(args, 'path'),
    execute: (args, context) => editTool(args, context.cwd, options),
  };
}

function parseEdits(value: unknown): TextEdit[] | string {
  if (!Array.isArray(value) || value.length === 0) return 'edits must list at least one edit';
  const edits: TextEdit[] = [];
  for (const [index, item] of value.entries()) {
    const edit = item as Partial<TextEdit> | null;
    if (typeof edit?.oldText !== 'string' || typeof edit.newText !== 'string') {
      return `edits[${index}] must have string oldText and newText`;
    }
    edits.push({ oldText: edit.oldText, newText: edit.newText });
  }
  return edits;
}

async function editTool(
  args: Record<string, unknown>,
  cwd: string,
  options: EditToolOptions,
): Promise<ToolOutput> {
  const path = stringArg(args, 'path');
  if (path === '') return errorOutput('edit: path is empty');
  const edits = parseEdits(args.edits);
  if (typeof edits === 'string') return errorOutput(`edit: ${edits} (${path})`);

  const existing = await writableFile('edit', path, cwd, options);
  if (existing.error) return existing.error;
  const { target } = existing;
  if (!existing.stats) return errorOutput(`edit: no such file: ${path} (use write to create it)`);

  const editor = options.route?.editor;
  let raw: Buffer;
  try {
    raw = editor?.readText
      ? Buffer.from(await editor.readText(target), 'utf8')
      : await fsp.readFile(target);
  } catch (error) {
    return errorOutput(
      editor?.readText
        ? `edit: the editor could not read ${path}: ${errorMessage(error)}`
        : fsErrorText('edit', path, error),
    );
  }
  let original: string;
  try {
    if (raw.includes(0)) throw new Error('NUL byte');
    original = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    return errorOutput(
      `edit: ${path} is not a UTF-8 text file; editing it would corrupt it (use bash instead)`,
    );
  }
  const bom = original.startsWith('\uFEFF') ? '\uFEFF' : '';
  const before = original.slice(bom.length);
  const result = applyEdits(before, edits, detectEol(before), path);
  if (!result.ok) return errorOutput(result.message);
  if (result.text === before) {
    return errorOutput(
      `edit: the edits leave ${path} unchanged (is each newText equal to its oldText?)`,
    );
  }

  try {
    if (editor?.writeText) await editor.writeText(target, bom + result.text);
    else replaceFile(target, bom + result.text, existing.stats.mode & 0o7777);
  } catch (error) {
    return errorOutput(
      editor?.writeText
        ? `edit: the editor could not write ${path}: ${errorMessage(error)}`
        : fsErrorText('edit', path, error),
    );
  }
  const count = edits.length === 1 ? '1 edit' : `${edits.length} edits`;
  const diff = await diffOf(path, before, result.text, options);
  return { ...textOutput(`Edited ${path} (${count})\n\n${diff.text}`), details: diff.details };
}
