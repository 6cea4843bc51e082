// Builds the system prompt: default (or SYSTEM.md, or --system-prompt) plus appended parts.
import { readFileSync } from 'node:fs';

export function defaultSystemPrompt(cwd: string, now = new Date()): string {
  return [
    "You are zot, a coding agent working in a terminal on the user's project.",
    'Use the tools to read, edit and run code rather than guessing. Prefer small, verifiable steps:',
    "read before you edit, make exact edits, and run the project's tests or commands to check your work.",
    'Be concise in your replies; show code only when it helps.',
    '',
    `Working directory: ${cwd}`,
    `Platform: ${process.platform}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
  ].join('\n');
}

export interface SystemPromptSources {
  cwd: string;
  /** --system-prompt: replaces everything else. */
  override?: string;
  /** $ZOT_HOME/SYSTEM.md: replaces the default when present. */
  systemFile: string;
  /** --append-system-prompt, in order. */
  append: string[];
}

export function buildSystemPrompt(sources: SystemPromptSources): string {
  let base = sources.override;
  if (base === undefined) {
    try {
      base = readFileSync(sources.systemFile, 'utf8');
    } catch {
      base = defaultSystemPrompt(sources.cwd);
    }
  }
  return [base.trimEnd(), ...sources.append.map((part) => part.trim())]
    .filter(Boolean)
    .join('\n\n');
}
