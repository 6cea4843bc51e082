// Session events to the views that show them: the chat, the status line, the queue, the notes.
import type { SessionEvent } from '../../contract/events.js';
import { isExtensionUiEvent } from '../../contract/extension-ui.js';
import type { InteractiveSession } from '../../contract/front-end.js';
import type { Theme } from '../../tui/theme.js';
import { restartedText } from '../io.js';
import type { ChatView } from './chat/chat-view.js';
import { CANCEL_NOTE_KEY } from './keys.js';
import type { Notes } from './notes.js';
import type { QueueArea } from './queue-area.js';
import type { StatusLine } from './status-line.js';

/** Extension failures stay in the chat until a clean reload or /clear. */
export const EXTENSION_ERROR_TAG = 'extension-error';

export interface Views {
  chat: ChatView;
  queue: QueueArea;
  notes: Notes;
  status: StatusLine;
  theme: Theme;
  render(): void;
  /** Whether an `auth` error means the provider refused a key (not that there is none). */
  keyRefused(): boolean;
}

/**
 * Shows every event `session` publishes until the returned function is called;
 * `commandsChanged` runs when the set of commands changes (the `/` list takes it in at once).
 */
export function routeEvents(
  session: InteractiveSession,
  views: Omit<Views, 'keyRefused'>,
  commandsChanged: () => void,
): () => void {
  // A key the provider refused can be replaced with /login; a missing key's error says so itself.
  const keyRefused = () => {
    const provider = session.state().provider;
    return session.providers().some((p) => p.provider === provider && p.ready);
  };
  let commandsRevision = session.state().commands_revision;
  // "reconnecting in N s" counts down: redrawn each second while a remote extension waits.
  let ticker: NodeJS.Timeout | undefined;
  const stop = session.subscribe((event) => {
    if (event.type === 'state' && event.commands_revision !== commandsRevision) {
      commandsRevision = event.commands_revision;
      commandsChanged();
    }
    if (event.type === 'state') {
      const waiting = event.extensions.remote?.some((link) => link.connection === 'reconnecting');
      if (waiting && !ticker) {
        ticker = setInterval(() => views.render(), 1000);
        ticker.unref();
      } else if (!waiting && ticker) {
        clearInterval(ticker);
        ticker = undefined;
      }
    }
    handle(event, { ...views, keyRefused });
  });
  return () => {
    if (ticker) clearInterval(ticker);
    stop();
  };
}

/** Routes one session event to the views that show it. Contract: never throws. */
function handle(event: SessionEvent, views: Views): void {
  const { chat, queue, notes, status, theme } = views;
  // Extension UI goes through the port (tuiUi); the chat gets everything else.
  if (!isExtensionUiEvent(event)) chat.handle(event);
  switch (event.type) {
    case 'state':
      status.update(event);
      break;
    case 'text_delta':
    case 'thinking_delta':
      status.stream(event.delta.length);
      break;
    case 'queue':
      queue.update(event);
      break;
    case 'user_message':
      notes.delete(CANCEL_NOTE_KEY);
      break;
    case 'error':
      if (event.kind === 'auth' && views.keyRefused()) {
        chat.display('hint: /login stores an API key for this provider', theme.muted);
      }
      break;
    case 'warning':
      chat.display(`warning: ${event.message}`, theme.warning);
      break;
    case 'ext_warning':
      // The trust dialog asks about an untrusted project extension instead.
      if (!event.untrusted) chat.display(`warning: ${event.message}`, theme.warning);
      break;
    case 'ext_error':
      chat.display(
        `${event.message}${event.log_path ? ` (log: ${event.log_path})` : ''}`,
        theme.error,
        undefined,
        EXTENSION_ERROR_TAG,
      );
      break;
    case 'ext_restarted':
      // Red like the crash it follows: the extension lost its state, and calls may have failed.
      chat.display(restartedText(event), theme.error, undefined, EXTENSION_ERROR_TAG);
      break;
  }
  views.render();
}
