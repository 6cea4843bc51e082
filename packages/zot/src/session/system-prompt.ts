// Builds the system prompt: default (or SYSTEM.md, or --system-prompt) plus appended parts.
import { readRegularText } from '../util/regular-file.js';
import { contextSection, type ContextFile } from './context-files.js';

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
  /** Project context files (AGENTS.md/CLAUDE.md), farthest first; absent or empty: none. */
  contextFiles?: ContextFile[];
  /** The skills to list (name and description; bodies load through the skill tool). */
  skills?: ReadonlyArray<{ name: string; description: string }>;
}

function skillsSection(skills: ReadonlyArray<{ name: string; description: string }>): string {
  if (skills.length === 0) return '';
  return [
    '# Skills',
    '',
    "Skills are instructions for particular tasks. When a task matches a skill's description,",
    'load it with the skill tool (by name) before you start, and follow it.',
    '',
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ].join('\n');
}

/** SYSTEM.md past this is not read (it would fill the context window on its own). */
const MAX_SYSTEM_FILE_BYTES = 1024 * 1024;

export function buildSystemPrompt(sources: SystemPromptSources): string {
  let base = sources.override;
  if (base === undefined) {
    const read = readRegularText(sources.systemFile, { limit: MAX_SYSTEM_FILE_BYTES });
    base = read.ok ? read.text : defaultSystemPrompt(sources.cwd);
  }
  return [
    base.trimEnd(),
    contextSection(sources.contextFiles ?? []),
    skillsSection(sources.skills ?? []),
    ...sources.append.map((part) => part.trim()),
  ]
    .filter(Boolean)
    .join('\n\n');
}
