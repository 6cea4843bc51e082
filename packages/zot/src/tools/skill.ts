// The skill tool: the model loads a skill's instructions by name when a task matches it (the
// system prompt lists names and descriptions only; bodies are read on demand, fresh each time).
import { dirname } from 'node:path';
import type { Tool } from '../agent/tool.js';
import { errorOutput, stringArg, textOutput, type FileGuard } from './common.js';
import type { SkillEntry } from './skills/catalog.js';
import { loadYaml, readSkillFile } from './skills/skill-file.js';
import { argsValidator } from './arg-validators.js';

/** `guard`: the sandbox's boundaries, which a skill file (or a link in it) must not cross. */
export function createSkillTool(skills: () => readonly SkillEntry[], guard?: FileGuard): Tool {
  return {
    name: 'skill',
    description:
      "Load a skill's instructions by name (the system prompt lists the available skills). " +
      'Use it when a task matches a skill, before you start the task.',
    argsValidator: argsValidator('skill'),
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: 'The skill name, as listed' } },
      required: ['name'],
      additionalProperties: false,
    },
    preview: (args) => stringArg(args, 'name'),
    execute: async (args) => {
      const name = stringArg(args, 'name');
      const all = skills();
      const entry = all.find((skill) => skill.name === name);
      if (!entry) {
        const valid = all.map((skill) => skill.name).join(', ') || '(none)';
        return errorOutput(`skill: unknown skill "${name}"; available: ${valid}`);
      }
      const denied = guard?.('skill', entry.file, 'read');
      if (denied) return errorOutput(denied);
      await loadYaml();
      const parsed = readSkillFile(entry.file, entry.within);
      if ('error' in parsed) return errorOutput(`skill: ${parsed.error}`);
      return textOutput(
        `# Skill: ${entry.name}\nBase directory (relative paths in it start here): ` +
          `${dirname(entry.file)}\n\n${parsed.body}`,
      );
    },
  };
}
