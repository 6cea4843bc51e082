// The extension-UI port: everything an extension can show or ask a person,
// as one interface that each mode implements once. The session routes the host's UI events to
// the port a mode connected (`session.connectUi`); confirmation before a tool runs is the
// port's other half (`session.enableConfirmation`).
import type { SessionEvent } from './events.js';

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

export interface ExtensionUi {
  /** `[name] message` below the chat, by level. */
  notify(event: EventOf<'ext_notify'>): void;
  /** That extension's notes are gone: it cleared them, or the runtime did (prompt, /clear). */
  clearNotes(event: EventOf<'ext_clear_notes'>): void;
  /** A one-shot block in the chat; never sent to the model, never saved. */
  display(event: EventOf<'ext_display'>): void;
  /** Text for the editor at the cursor, not sent. */
  insert(event: EventOf<'ext_insert'>): void;
  /** An extension asks to send a prompt; the front end decides (design D21). */
  submit(event: EventOf<'ext_submit'>): void;
  openPanel(event: EventOf<'ext_panel_open'>): void;
  /** New content for the open panel; only its owner's renders get here. */
  renderPanel(event: EventOf<'ext_panel_render'>): void;
  /** The panel closed: by its extension, by the user, or because the extension died. */
  closePanel(event: EventOf<'ext_panel_close'>): void;
}

/** Which port method each extension-UI event goes to. */
export const EXTENSION_UI_ROUTES = {
  ext_notify: 'notify',
  ext_clear_notes: 'clearNotes',
  ext_display: 'display',
  ext_insert: 'insert',
  ext_submit: 'submit',
  ext_panel_open: 'openPanel',
  ext_panel_render: 'renderPanel',
  ext_panel_close: 'closePanel',
} as const satisfies Partial<Record<SessionEvent['type'], keyof ExtensionUi>>;

export type ExtensionUiEvent = EventOf<keyof typeof EXTENSION_UI_ROUTES>;

export function isExtensionUiEvent(event: SessionEvent): event is ExtensionUiEvent {
  return Object.hasOwn(EXTENSION_UI_ROUTES, event.type);
}

/** Hands `event` to its port method. Contract: returns false (and does nothing) for others. */
export function routeExtensionUi(event: SessionEvent, ui: ExtensionUi): boolean {
  if (!isExtensionUiEvent(event)) return false;
  const method = EXTENSION_UI_ROUTES[event.type];
  (ui[method] as (event: ExtensionUiEvent) => void)(event);
  return true;
}

/** The port of the machine-readable modes (JSON, RPC): every action goes out as its event. */
export function forwardingUi(send: (event: ExtensionUiEvent) => void): ExtensionUi {
  return {
    notify: send,
    clearNotes: send,
    display: send,
    insert: send,
    submit: send,
    openPanel: send,
    renderPanel: send,
    closePanel: send,
  };
}
