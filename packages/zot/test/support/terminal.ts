// Runs the built CLI on a pseudo-terminal through script(1) (util-linux), as a person would.
import { spawn, spawnSync } from 'node:child_process';
import { cleanEnv, ZOT_BIN } from './zot.js';

/** Whether script(1) is available to provide a terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

export interface TerminalRun {
  home: string;
  cwd: string;
  env?: Record<string, string>;
  /** Typed once `prompt` shows in the output. */
  answer?: { prompt: string; text: string };
}

/** Runs `zot <args>`; the output is what the terminal received (with CRLF line ends). */
export async function runOnTerminal(
  args: string[],
  options: TerminalRun,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, ZOT_BIN, ...args]
    .map((word) => `'${word.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd,
    env: cleanEnv(options.home, options.env),
  });
  let output = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (options.answer && !answered && output.includes(options.answer.prompt)) {
      answered = true;
      child.stdin.write(options.answer.text);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}
