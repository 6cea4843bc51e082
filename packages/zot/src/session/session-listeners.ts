// Who hears a session's events: the modes' subscribers and the extension-UI port. Warnings
// raised before anyone subscribed are held for the first subscriber.
import type { SessionEvent } from '../contract/events.js';
import { routeExtensionUi, type ExtensionUi } from '../contract/extension-ui.js';

export class SessionListeners {
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly held: string[];

  constructor(warnings: readonly string[]) {
    this.held = [...warnings];
  }

  /** Holds `message` for the first subscriber when nobody listens yet; false when somebody does. */
  hold(message: string): boolean {
    if (this.listeners.size > 0) return false;
    this.held.push(message);
    return true;
  }

  /** As `Session.subscribe`. */
  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    for (const message of this.held.splice(0)) {
      try {
        listener({ type: 'warning', message });
      } catch {
        // As in send(): a failing listener must not break the session.
      }
    }
    return () => this.listeners.delete(listener);
  }

  /** As `Session.connectUi`. */
  connectUi(ui: ExtensionUi): () => void {
    // Not through subscribe(): the held warnings are for the mode's own subscriber.
    const listener = (event: SessionEvent) => void routeExtensionUi(event, ui);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener failing (e.g. a closed stdout) must not break the agent.
      }
    }
  }
}
