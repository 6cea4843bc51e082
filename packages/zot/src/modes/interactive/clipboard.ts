// Putting text on the clipboard (/copy, /session): through the terminal (OSC 52, which reaches
// the clipboard of the machine the user sits at, over SSH and through tmux) and through the
// clipboard program of this machine when there is one (wl-copy, xclip, xsel, pbcopy). The text
// is made safe first: a control character or escape sequence in a model's answer is copied as
// the visible escape the chat showed, so pasting it into a shell runs nothing it did not show.
import { terminalSafeBlock } from '../../util/terminal-text.js';
import type { UserPrograms } from './terminal-handoff.js';

/**
 * Terminals cap what OSC 52 may carry (xterm and kitty at about 100 KB of base64); past it, the
 * sequence is dropped whole or cut, so a larger text is not sent that way.
 */
export const MAX_OSC52_BASE64 = 100_000;
/** How long a clipboard program may take. */
export const CLIPBOARD_TIMEOUT_MS = 3000;

export interface ClipboardTargets {
  /** Writes to the terminal (OSC 52). */
  write(data: string): void;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  programs?: UserPrograms;
}

export interface CopyReport {
  /** Some way took it. */
  ok: boolean;
  /** What was done, for the user: which ways took it, and why one did not. */
  text: string;
}

/** The clipboard programs to try here, in order. */
export function clipboardPrograms(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Array<readonly [string, ...string[]]> {
  if (platform === 'darwin') return [['pbcopy']];
  if (platform === 'win32') return [['clip']];
  const programs: Array<readonly [string, ...string[]]> = [];
  if (env.WAYLAND_DISPLAY) programs.push(['wl-copy']);
  if (env.DISPLAY) {
    programs.push(['xclip', '-selection', 'clipboard'], ['xsel', '--clipboard', '--input']);
  }
  return programs;
}

/** Copies `text` (made safe) every way there is. Contract: never rejects. */
export async function copyToClipboard(
  text: string,
  targets: ClipboardTargets,
): Promise<CopyReport> {
  const safe = terminalSafeBlock(text);
  const ways: string[] = [];
  const notes: string[] = [];
  const encoded = Buffer.from(safe, 'utf8').toString('base64');
  if (encoded.length <= MAX_OSC52_BASE64) {
    targets.write(`\x1b]52;c;${encoded}\x07`);
    ways.push('the terminal (OSC 52)');
  } else {
    notes.push(`too long for the terminal's clipboard (OSC 52 carries about 75 KB)`);
  }
  const platform = targets.platform ?? process.platform;
  for (const argv of targets.programs ? clipboardPrograms(targets.env, platform) : []) {
    try {
      const code = await targets.programs!.withInput(argv, safe, CLIPBOARD_TIMEOUT_MS);
      if (code === 0) {
        ways.push(argv[0]);
        break;
      }
      notes.push(`${argv[0]} ended with ${code}`);
    } catch (error) {
      // Not installed: the next one is tried, and not mentioned.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        notes.push(`${argv[0]} could not run (${(error as Error).message})`);
      }
    }
  }
  const changed = safe !== text ? ' (control characters copied as the escapes shown)' : '';
  const noted = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  if (ways.length === 0) return { ok: false, text: `nothing was copied${noted}` };
  return { ok: true, text: `through ${ways.join(' and ')}${changed}${noted}` };
}
