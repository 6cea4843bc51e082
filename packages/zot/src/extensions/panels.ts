// The open extension panel: who owns it, what it shows, and the keys a front end may send it
// (design D17, D23). One panel is open at a time, as it has the focus.
import { PANEL_KEYS, type PanelKey, type PanelRenderFrame, type PanelSpec } from '@zot/protocol';
import type { ErrorKind } from '../contract/errors.js';
import type { RunningExtension } from './extension.js';
import type { HostEvent } from './host.js';

/** What a front end needs to draw the open panel. */
export interface PanelSnapshot {
  readonly extension: string;
  readonly id: string;
  readonly title: string | undefined;
  readonly lines: readonly string[];
  readonly footer: string | undefined;
}

interface PanelRecord {
  owner: RunningExtension;
  id: string;
  title: string | undefined;
  lines: string[];
  footer: string | undefined;
  /** Keys typed while the previous one is still being handled (see KEY_PACE_MS). */
  waiting: Array<{ key: PanelKeyName; text?: string }>;
  /** Set while a sent key has been neither rendered nor timed out. */
  pace: NodeJS.Timeout | undefined;
}

/**
 * A panel's next key goes out once the extension has rendered the panel after the previous one,
 * or after this long. On the wire keys are always in order, but an extension may handle each
 * key concurrently (the Go original's SDK starts a goroutine per key) and then sees them
 * scrambled: "buy milk" became "kmyliub". Pacing keeps such extensions correct at typing speed.
 */
export const KEY_PACE_MS = 100;
/** Keys held for one panel at most; more are refused (the user is told). */
const MAX_WAITING_KEYS = 1024;

/** The closed set of design D23 (`esc` closes instead of being sent). */
export type PanelKeyName = Exclude<PanelKey, 'esc'>;
const KEY_NAMES: ReadonlySet<string> = new Set(PANEL_KEYS.filter((key) => key !== 'esc'));
/** Keys that close the panel and send `panel_close` instead (design D17). */
const CLOSE_KEYS: ReadonlySet<string> = new Set(['esc', 'ctrl+c']);

export function isPanelKeyName(key: string): key is PanelKeyName {
  return KEY_NAMES.has(key);
}

/** The answer to a key or close request from a front end; `error` is meant for the user. */
/** A failure says what kind it is (no such panel, a key zot does not know, a slow owner). */
export type PanelRequestResult = { ok: true } | { ok: false; error: string; kind: ErrorKind };

const noPanel = (id: string): PanelRequestResult => ({
  ok: false,
  error: `no open panel "${id}"`,
  kind: 'not_found',
});

/**
 * Contract: only the owner of the open panel may render or close it (anything else is logged
 * and dropped); every way the panel goes away emits one ext_panel_close; never throws.
 */
export class PanelModel {
  private current: PanelRecord | undefined;

  constructor(private readonly emit: (event: HostEvent) => void) {}

  snapshot(): PanelSnapshot | undefined {
    const panel = this.current;
    if (!panel) return undefined;
    const { id, title, footer } = panel;
    return { extension: panel.owner.name, id, title, lines: [...panel.lines], footer };
  }

  /** `open_panel` from a command: it takes the focus; a different panel open before closes. */
  open(owner: RunningExtension, spec: PanelSpec): void {
    const before = this.current;
    if (before && (before.owner !== owner || before.id !== spec.id)) {
      this.close(before, 'replaced');
    }
    this.current = {
      owner,
      id: spec.id,
      title: spec.title,
      lines: [...(spec.lines ?? [])],
      footer: spec.footer,
      waiting: [],
      pace: undefined,
    };
  }

  /** `panel_render` from an extension. */
  render(from: RunningExtension, frame: PanelRenderFrame): void {
    const panel = this.owned(from, frame.panel_id, 'panel_render');
    if (!panel) return;
    if (frame.title !== undefined) panel.title = frame.title;
    if (frame.lines !== undefined) panel.lines = [...frame.lines];
    if (frame.footer !== undefined) panel.footer = frame.footer;
    this.sendNextKey(panel);
    this.emit({
      type: 'ext_panel_render',
      extension: from.name,
      panel_id: frame.panel_id,
      ...(frame.title !== undefined ? { title: frame.title } : {}),
      ...(frame.lines !== undefined ? { lines: frame.lines } : {}),
      ...(frame.footer !== undefined ? { footer: frame.footer } : {}),
    });
  }

  /** `panel_close` from an extension: it closes its own panel. */
  closeFrom(from: RunningExtension, panelId: string): void {
    const panel = this.owned(from, panelId, 'panel_close');
    if (panel) this.close(panel, 'extension');
  }

  /** The user closed the panel (Esc, Ctrl+C, a front end's request). */
  closeByUser(panelId: string): PanelRequestResult {
    const panel = this.current;
    if (!panel || panel.id !== panelId) return noPanel(panelId);
    this.close(panel, 'user');
    return { ok: true };
  }

  /** A key from a front end: forwarded to the owner, or closing the panel (Esc, Ctrl+C). */
  key(panelId: string, key: string, text?: string): PanelRequestResult {
    if (CLOSE_KEYS.has(key)) return this.closeByUser(panelId);
    if (!isPanelKeyName(key)) {
      const names = [...KEY_NAMES].join(', ');
      const error = `unknown panel key "${key}" (one of ${names}; esc closes)`;
      return { ok: false, error, kind: 'invalid_request' };
    }
    if (key === 'rune' && !text)
      return {
        ok: false,
        error: 'panel key "rune" needs the typed character in text',
        kind: 'invalid_request',
      };
    const panel = this.current;
    if (!panel || panel.id !== panelId) return noPanel(panelId);
    if (!panel.owner.running) {
      this.close(panel, 'gone'); // e.g. its load failed after it opened the panel
      return noPanel(panelId);
    }
    if (panel.pace) {
      if (panel.waiting.length >= MAX_WAITING_KEYS)
        return {
          ok: false,
          error: `extension ${panel.owner.name} is not keeping up with the keys`,
          kind: 'busy',
        };
      panel.waiting.push(key === 'rune' ? { key, text: text! } : { key });
      return { ok: true };
    }
    this.sendKey(panel, key, text);
    return { ok: true };
  }

  private sendKey(panel: PanelRecord, key: PanelKeyName, text?: string): void {
    panel.owner.send({
      type: 'panel_key',
      panel_id: panel.id,
      key,
      ...(key === 'rune' ? { text } : {}),
    });
    panel.pace = setTimeout(() => this.sendNextKey(panel), KEY_PACE_MS);
    panel.pace.unref();
  }

  /** The previous key was handled (rendered) or its time is up: the next one may go. */
  private sendNextKey(panel: PanelRecord): void {
    clearTimeout(panel.pace);
    panel.pace = undefined;
    if (this.current !== panel || !panel.owner.running) return;
    const next = panel.waiting.shift();
    if (next) this.sendKey(panel, next.key, next.text);
  }

  /** Its owner died, stopped or is being reloaded: the panel closes with it. */
  closeOwnedBy(owner: RunningExtension): void {
    if (this.current?.owner === owner) this.close(this.current, 'gone');
  }

  /** The open panel when `from` owns `panelId`; otherwise the frame is logged and dropped. */
  private owned(from: RunningExtension, panelId: string, what: string): PanelRecord | undefined {
    const panel = this.current;
    if (panel?.id === panelId && panel.owner === from) return panel;
    const why =
      panel?.id === panelId
        ? `it belongs to extension ${panel.owner.name}`
        : 'no such panel is open';
    from.log.write(`ignored ${what} for panel "${panelId}": ${why}`);
    return undefined;
  }

  /** Closes `panel`; its owner hears about it unless it asked or can no longer listen. */
  private close(panel: PanelRecord, why: 'replaced' | 'extension' | 'user' | 'gone'): void {
    if (this.current === panel) this.current = undefined;
    clearTimeout(panel.pace);
    panel.pace = undefined;
    panel.waiting.length = 0;
    if ((why === 'replaced' || why === 'user') && panel.owner.running)
      panel.owner.send({ type: 'panel_close', panel_id: panel.id });
    this.emit({ type: 'ext_panel_close', extension: panel.owner.name, panel_id: panel.id });
  }
}
