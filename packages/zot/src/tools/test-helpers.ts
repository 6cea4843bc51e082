// Shared fixtures for the tool tests: temp directories and a recording ToolContext.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext, ToolOutput } from '../agent/tool.js';

export interface TestContext extends ToolContext {
  progress: string[];
}

export function makeContext(
  cwd: string,
  signal: AbortSignal = new AbortController().signal,
): TestContext {
  const progress: string[] = [];
  return { cwd, toolCallId: 'call_1', signal, progress, onProgress: (text) => progress.push(text) };
}

/** A fresh real directory (symlinks resolved, so `pwd` matches it); removed by `cleanup`. */
export function tempDir(prefix = 'zot-tools-'): { dir: string; cleanup(): void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The text of the first text block. */
export function textOf(output: ToolOutput): string {
  const block = output.content.find((item) => item.type === 'text');
  return block?.type === 'text' ? block.text : '';
}
