// What the chat shows before the first prompt: the banner, a resumed transcript, the warnings
// of starting the run, and how to add a key when the provider has none.
import type { InteractiveSession } from '../../contract/front-end.js';
import { shownMessage } from '../../contract/shown-message.js';
import type { Theme } from '../../tui/theme.js';
import type { ChatView } from './chat/chat-view.js';

export interface Welcome {
  version: string;
  themeWarnings?: string[];
  warnings?: string[];
}

export function welcome(
  chat: ChatView,
  theme: Theme,
  session: InteractiveSession,
  { version, themeWarnings = [], warnings = [] }: Welcome,
): void {
  chat.display(`zot ${version} · /help for keys and commands`, theme.muted);
  // The screen's worth first: a long session's first frame costs what a new one's does. A
  // long resumed file is read after that frame too, from its newest messages (the preview).
  const preview = session.transcriptPreview();
  if (preview) {
    chat.replay(preview.map(shownMessage), {
      firstScreen: true,
      loading: {
        read: (until) => {
          const held = session.loadTranscript(until);
          return held === undefined ? undefined : held - preview.length;
        },
      },
    });
  } else if (session.messages.length > 0)
    chat.replay(session.messages.map(shownMessage), { firstScreen: true });
  for (const warning of themeWarnings) chat.display(warning, theme.warning);
  for (const warning of warnings) chat.display(`warning: ${warning}`, theme.warning);
  const provider = session.state().provider;
  if (session.providers().some((p) => p.provider === provider && !p.ready)) {
    chat.display(
      `no API key for ${provider} yet: /login stores one (or set it in the environment)`,
      theme.warning,
    );
  }
}
