// The one MCP call the bench's diagnostics make: read_text_file of a 2 KiB file from
// server-filesystem, or server-everything's echo. Writes the file into `files`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.mjs';

/** The server to start (command and args), the tool and its arguments. */
export function benchCall(files, echo) {
  writeFileSync(join(files, 'notes.txt'), 'zot bench line\n'.repeat(128).slice(0, 2048));
  const server = {
    command: process.execPath,
    args: echo
      ? [join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio']
      : [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), files],
  };
  const tool = echo ? 'echo' : 'read_text_file';
  const args = echo ? { message: 'hello' } : { path: join(files, 'notes.txt') };
  return { server, tool, args };
}
