// Whether the terminal's background is dark or light, so the built-in theme fits it. COLORFGBG
// (set by rxvt, Konsole and others) answers without any I/O; otherwise the terminal is asked
// with OSC 11 ("what is your background colour?") followed by DA1 ("what are you?"). Every
// terminal answers DA1, and answers arrive in order, so a terminal that ignores OSC 11 costs no
// timeout: its DA1 answer ends the wait. Keys typed meanwhile are handed back to the TUI.

export type Background = 'dark' | 'light';

/** The query: OSC 11 then DA1. */
export const BACKGROUND_QUERY = '\x1b]11;?\x1b\\\x1b[c';

/** How long to wait for a terminal that answers neither (a pipe pretending to be a tty). */
const DEFAULT_LIMIT_MS = 250;

/** `COLORFGBG="15;0"`: the last field is the background's palette index (7 and 15 are light). */
export function backgroundFromColorFgBg(value: string | undefined): Background | undefined {
  const last = value?.split(';').at(-1);
  if (last === undefined || !/^\d{1,3}$/.test(last)) return undefined;
  const index = Number(last);
  if (index > 15) return undefined;
  return index === 7 || index === 15 ? 'light' : 'dark';
}

// OSC 11 answer: ESC ] 11 ; rgb:RRRR/GGGG/BBBB (1-4 hex digits each; rgba: adds alpha), ended by
// BEL or ST.
const REPLY =
  /\x1b\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\/[0-9a-f]{1,4})?(?:\x07|\x1b\\)/i;
// DA1 answer: ESC [ ? <params> c
const DA1 = /\x1b\[\?[\d;]*c/;

/** The background an OSC 11 answer names, by its relative luminance; undefined without one. */
export function backgroundFromReply(text: string): Background | undefined {
  const match = REPLY.exec(text);
  if (!match) return undefined;
  const [r, g, b] = match.slice(1, 4).map((hex) => parseInt(hex, 16) / (16 ** hex.length - 1));
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return luminance > 0.5 ? 'light' : 'dark';
}

export interface QueryInput {
  readonly isTTY?: boolean;
  isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  pause(): unknown;
  unshift(chunk: Buffer): void;
}

export interface QueryOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Asks the terminal; resolves with its background, or undefined when it does not say (no tty,
 * no OSC 11 support, no answer within `limitMs`). Contract: never rejects; input that is not
 * part of an answer is put back for the next reader; raw mode is as it was.
 */
export function queryBackground(
  input: QueryInput,
  output: QueryOutput,
  limitMs = DEFAULT_LIMIT_MS,
): Promise<Background | undefined> {
  if (!input.isTTY || !output.isTTY || !input.setRawMode) return Promise.resolve(undefined);
  const wasRaw = input.isRaw === true;
  return new Promise((resolve) => {
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      input.off('data', onData);
      input.pause();
      try {
        input.setRawMode!(wasRaw);
      } catch {
        // A terminal gone meanwhile: the TUI will find out.
      }
      const answer = backgroundFromReply(received);
      const rest = received.replace(REPLY, '').replace(DA1, '');
      if (rest.length > 0) input.unshift(Buffer.from(rest, 'latin1'));
      resolve(answer);
    };
    const onData = (chunk: Buffer | string) => {
      received += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      if (DA1.test(received)) finish();
    };
    try {
      input.setRawMode!(true);
      input.on('data', onData);
      output.write(BACKGROUND_QUERY);
    } catch {
      finish();
      return;
    }
    timer = setTimeout(finish, limitMs);
  });
}

/** The background to theme for: COLORFGBG, else the terminal's answer. Never rejects. */
export async function detectBackground(
  env: NodeJS.ProcessEnv,
  input: QueryInput,
  output: QueryOutput,
): Promise<Background | undefined> {
  return backgroundFromColorFgBg(env.COLORFGBG) ?? (await queryBackground(input, output));
}
