// scratchpad: notes kept in the extension's data directory, as slash commands for you and as a
// tool for the model. TypeScript run from source (see ../ts-hooks.mjs): no build step.
import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createExtension, display, error, noop, text } from '@zot/sdk';
import { formatNotes, parseNotes } from './notes.js';

const ext = createExtension({ name: 'scratchpad', version: '1.0.0' });
const file = () => join(ext.host.dataDir, 'scratchpad.txt');

async function load(): Promise<string[]> {
  try {
    return parseNotes(await readFile(file(), 'utf8'));
  } catch {
    return [];
  }
}

async function add(note: string): Promise<number> {
  await appendFile(file(), note.replace(/\s+/g, ' ').trim() + '\n', { mode: 0o600 });
  return (await load()).length;
}

ext.command('note', 'add a note to the scratchpad: /note TEXT', async (args) => {
  if (args === '') return error('usage: /note TEXT');
  const count = await add(args);
  ext.notify('success', `noted (${count} on the scratchpad)`);
  return noop();
});

ext.command('notes', 'show the scratchpad', async () => display(formatNotes(await load())));

ext.command('notes-clear', 'empty the scratchpad', async () => {
  await rm(file(), { force: true });
  return display('scratchpad cleared');
});

ext.tool(
  'scratchpad',
  "Reads the user's scratchpad notes, or appends one.",
  {
    type: 'object',
    properties: {
      action: { enum: ['read', 'append'] },
      note: { type: 'string', description: 'the note, for append' },
    },
    required: ['action'],
  },
  async ({ action, note }) => {
    if (action === 'read') return text(formatNotes(await load()));
    if (!note) return text('append needs a note');
    return text(`appended; ${await add(note)} notes`);
  },
);

await ext.run();
