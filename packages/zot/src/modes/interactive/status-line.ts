// The status line under the editor, drawn from the last `state` snapshot alone. (A stand-in:
// the tui/status-bar.ts widget replaces it behind the same update/render surface.)
import { truncateToWidth, visibleWidth, type Component } from '@mariozechner/pi-tui';
import { cut } from '../../tui/dialog-frame.js';
import type { Theme } from '../../tui/theme.js';
import { terminalSafe } from '../../util/terminal-text.js';
import type { RuntimeState } from '../../contract/state.js';

export interface StatusLineOptions {
  theme: Theme;
  /** The home directory, shown as `~` (injected for tests). */
  home?: string;
  /** The git branch of a directory (util/git-branch.ts; injected for tests). */
  branch?: (cwd: string) => string | undefined;
  /** Injected for tests; `Date.now` otherwise. */
  now?: () => number;
  /** The thinking level (shown unless off). */
  reasoning?: () => string;
}

/**
 * How often the live estimate of output tokens moves. Every change rewrites the status line,
 * and a count that moved with each streamed word cost a rewrite per frame.
 */
export const STREAM_ESTIMATE_MS = 1000;

/** Contract: every rendered line fits `width` (cut text ends with `…`). */
export class StatusLine implements Component {
  private state: RuntimeState | undefined;
  private branch: { cwd: string; name: string | undefined } | undefined;
  /** Characters streamed since the last usage figures: output tokens are estimated live. */
  private streamed = 0;
  /** The characters the estimate shows, and when it last moved. */
  private shown = { streamed: 0, at: 0 };

  constructor(private readonly options: StatusLineOptions) {}

  update(state: RuntimeState): void {
    // New usage figures replace the estimate.
    if (this.state && JSON.stringify(this.state.usage) !== JSON.stringify(state.usage))
      this.streamed = 0;
    if (!state.busy) this.streamed = 0;
    if (this.streamed === 0) this.shown = { streamed: 0, at: 0 };
    if (this.branch?.cwd !== state.cwd) {
      this.branch = { cwd: state.cwd, name: this.options.branch?.(state.cwd) };
    }
    this.state = state;
  }

  /** Text streamed by the model right now (about four characters a token until usage comes). */
  stream(characters: number): void {
    this.streamed += characters;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const state = this.state;
    if (!state) return [];
    const { theme } = this.options;
    const home = this.options.home;
    const cwd =
      home && (state.cwd === home || state.cwd.startsWith(home + '/'))
        ? `~${state.cwd.slice(home.length)}`
        : state.cwd;
    const u = state.usage;
    const now = (this.options.now ?? Date.now)();
    if (this.shown.streamed !== this.streamed && now - this.shown.at >= STREAM_ESTIMATE_MS)
      this.shown = { streamed: this.streamed, at: now };
    const estimated = Math.ceil(this.shown.streamed / 4);
    const window = state.context.window;
    const used = state.context.used + estimated;
    const model = terminalSafe(`${state.provider}/${state.model}`);
    // The session's name (/name) leads: it says which of several sessions this is.
    const name =
      state.session_name !== undefined
        ? theme.bold(`“${cut(terminalSafe(state.session_name), NAME_MAX)}”`)
        : '';
    // Tokens and cost give way first when the line is too narrow.
    const spent = [
      `↑${tokens(u.input + u.cache_read + u.cache_write)} ↓${estimated > 0 ? '~' : ''}${tokens(u.output + estimated)}`,
      `$${u.cost_usd.toFixed(u.cost_usd < 1 ? 4 : 2)}`,
    ];
    const context = `ctx ${window > 0 ? Math.min(100, Math.round((used / window) * 100)) : 0}%`;
    const parts = [context];
    const reasoning = this.options.reasoning?.();
    const thinking = reasoning && reasoning !== 'off' ? terminalSafe(reasoning) : undefined;
    if (thinking) parts.push(`thinking ${thinking}`);
    if (!state.yolo) parts.push('confirm');
    const sandbox = sandboxLabel(state.sandbox);
    if (sandbox)
      parts.push(state.sandbox.status === 'unavailable' ? theme.error(sandbox) : sandbox);
    const loaded = state.extensions.loaded.length;
    const failed = state.extensions.failed.length;
    if (loaded > 0 || failed > 0) {
      parts.push(`ext ${loaded}${failed > 0 ? theme.error(` (${failed} failed)`) : ''}`);
    }
    for (const link of state.extensions.remote ?? []) {
      if (link.connection === 'connected') continue;
      const text = terminalSafe(`${link.name} (${link.url}) ${linkState(link, now)}`);
      parts.push(link.connection === 'down' ? theme.error(text) : theme.warning(text));
    }
    if (state.busy) {
      parts.push(state.queue_length > 0 ? `working · ${state.queue_length} queued` : 'working');
    }
    // The directory gives way first: its start is cut, so its last part stays readable. It
    // keeps at least PLACE_MIN columns: then tokens and cost go, then the thinking label
    // shortens and the model's middle is cut (fitThinking), then the line's end is cut.
    const branch = this.branch?.name;
    const place = terminalSafe(branch ? `${cwd} (${branch})` : cwd);
    const full = [model, ...spent, ...parts].join(' · ');
    const lead = name === '' ? 0 : visibleWidth(name) + 3;
    const placeMin = Math.min(visibleWidth(place), PLACE_MIN);
    let rest = full;
    if (width - lead - visibleWidth(full) - 3 < PLACE_MIN) {
      rest = [model, ...parts].join(' · ');
      if (thinking && width - lead - visibleWidth(rest) - 3 < placeMin) {
        // The thinking level must still show: its label shortens, then the model's middle is
        // cut; what follows it is cut at the line's end (one column kept for that `…`).
        const follows = parts.length > 2 ? 1 : 0;
        const fitted = fitThinking(model, context, thinking, width - lead - placeMin - 3 - follows);
        parts[1] = fitted.label;
        rest = [fitted.model, ...parts].join(' · ');
      }
    }
    const room = Math.max(width - lead - visibleWidth(rest) - 3, PLACE_MIN);
    const shown = room >= visibleWidth(place) ? place : `…${place.slice(-(room - 1))}`;
    const line = [name, shown, rest].filter((part) => part !== '').join(' · ');
    return [truncateToWidth(theme.statusBar(line), width, '…')];
  }
}

/**
 * The thinking label ("thinking high", "think:high", "high"), the longest for which the model,
 * the context meter and it fit in `room` columns; with the shortest, the model is cut in the
 * middle to make room.
 */
function fitThinking(
  model: string,
  context: string,
  level: string,
  room: number,
): { model: string; label: string } {
  const labels = [`thinking ${level}`, `think:${level}`, level];
  const after = (label: string) => visibleWidth(` · ${context} · ${label}`);
  for (const label of labels)
    if (visibleWidth(model) + after(label) <= room) return { model, label };
  return { model: middleCut(model, room - after(level)), label: level };
}

/**
 * `text` in at most `max` columns, its middle left out: the provider prefix ("anthropic/") and
 * the end of the model's name stay readable. Plain text only (terminal-safe, no styles).
 */
export function middleCut(text: string, max: number): string {
  if (visibleWidth(text) <= max) return text;
  if (max <= 1) return max === 1 ? '…' : '';
  const keep = max - 1;
  const prefix = visibleWidth(text.slice(0, text.indexOf('/') + 1));
  // The whole prefix when a few characters of the end still fit beside it, else half and half.
  const headColumns = prefix > 0 && prefix + MODEL_END_MIN <= keep ? prefix : Math.ceil(keep / 2);
  const chars = Array.from(text);
  const head = leading(chars, headColumns).join('');
  const tail = leading(chars.reverse(), keep - visibleWidth(head))
    .reverse()
    .join('');
  return `${head}…${tail}`;
}

/** The longest run of `chars` from their start that is at most `columns` wide. */
function leading(chars: readonly string[], columns: number): string[] {
  const taken: string[] = [];
  let used = 0;
  for (const char of chars) {
    const width = visibleWidth(char);
    if (used + width > columns) break;
    taken.push(char);
    used += width;
  }
  return taken;
}

/** The characters of a model's name kept after its provider prefix, at least, when it is cut. */
const MODEL_END_MIN = 6;

/** The columns a session's name takes at most in the status line. */
const NAME_MAX = 24;

/** The columns the working directory keeps, however narrow the terminal. */
const PLACE_MIN = 16;

/** The sandbox in a word or two; nothing when it is off (the default). */
function sandboxLabel(sandbox: RuntimeState['sandbox']): string | undefined {
  const mode = sandbox.mode === 'required' ? 'sandbox required' : 'sandbox';
  switch (sandbox.status) {
    case 'off':
      return undefined;
    case 'checking':
      return `${mode}…`;
    case 'active':
      return mode;
    case 'unavailable':
      return sandbox.mode === 'required' ? 'sandbox required: unavailable' : 'sandbox unavailable';
  }
}

function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

type RemoteLink = NonNullable<RuntimeState['extensions']['remote']>[number];

/** "connecting", "reconnecting in 3 s", "down: why" (the TUI redraws each second meanwhile). */
export function linkState(link: RemoteLink, now: number): string {
  if (link.connection === 'reconnecting') {
    const seconds = link.retry_at === undefined ? 0 : Math.ceil((link.retry_at - now) / 1000);
    return seconds > 0 ? `reconnecting in ${seconds} s` : 'reconnecting';
  }
  if (link.connection === 'down') return link.reason ? `down: ${link.reason}` : 'down';
  return link.connection;
}
