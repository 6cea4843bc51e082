// The slash commands only the TUI runs: /copy (the last answer to the clipboard), /hotkeys
// (the keys in force) and /settings (the thinking level, thinking shown or hidden, the theme,
// the model and the keys, each changed in place and kept for the next run).
import type { TUI } from '@mariozechner/pi-tui';
import type { InteractiveSession, ReasoningChoice } from '../../contract/front-end.js';
import { REASONING_CHOICES } from '../../contract/front-end.js';
import { showSelectDialog } from '../../tui/select-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';
import { groupedCount } from './chat/message-parts.js';
import { copyToClipboard, type ClipboardTargets } from './clipboard.js';
import { modelReasons } from './cycling.js';
import { hotkeysText } from './hotkeys.js';

export interface OwnCommandsOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  display(text: string, style?: Style): void;
  clipboard: ClipboardTargets;
  keybindings: { file: string | undefined; problems: readonly string[] };
  thinking: { shown(): boolean; show(shown: boolean): void };
  dialogs: { model(): Promise<void>; theme(): Promise<void> };
}

export type OwnCommand = (args: string) => Promise<void>;

/** The text of the last answer the model gave (its text blocks), or undefined. */
export function lastAnswer(session: InteractiveSession): string | undefined {
  for (let i = session.messages.length - 1; i >= 0; i--) {
    const message = session.messages[i]!;
    if (message.role !== 'assistant') continue;
    const text = message.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('')
      .trim();
    if (text !== '') return text;
  }
  return undefined;
}

export function ownCommands(options: OwnCommandsOptions): Record<string, OwnCommand> {
  const { theme, display } = options;
  return {
    copy: async () => {
      const answer = lastAnswer(options.session);
      if (answer === undefined) return display('no answer to copy yet', theme.warning);
      const report = await copyToClipboard(answer, options.clipboard);
      const size = `${groupedCount(answer.length)} characters`;
      display(
        report.ok ? `copied the last answer (${size}) ${report.text}` : report.text,
        report.ok ? theme.muted : theme.warning,
      );
    },
    hotkeys: async () => {
      display(hotkeysText(options.keybindings.file, options.keybindings.problems));
    },
    settings: () => settings(options),
  };
}

type Setting = 'thinking' | 'show-thinking' | 'theme' | 'model' | 'keys';

/** /settings: a list of what can be set; picking one changes it (or opens its own dialog). */
async function settings(options: OwnCommandsOptions): Promise<void> {
  const { tui, theme, session } = options;
  const state = session.state();
  const { result } = showSelectDialog<Setting>(tui, {
    title: 'Settings',
    theme,
    items: [
      {
        value: 'thinking',
        label: 'thinking level',
        description: session.reasoningLevel(),
        detail: modelReasons(session) ? 'shift+tab cycles' : 'this model does not think',
      },
      {
        value: 'show-thinking',
        label: 'show thinking',
        description: options.thinking.shown() ? 'on' : 'off',
        detail: 'ctrl+t switches',
      },
      { value: 'theme', label: 'theme', description: 'choose the colours', detail: '/theme' },
      {
        value: 'model',
        label: 'model',
        description: `${state.provider}/${state.model}`,
        detail: '/model',
      },
      { value: 'keys', label: 'keys', description: 'the keys in force', detail: '/hotkeys' },
    ],
  });
  const picked = await result;
  switch (picked?.value) {
    case 'thinking':
      return thinkingLevel(options);
    case 'show-thinking': {
      const shown = !options.thinking.shown();
      options.thinking.show(shown);
      return options.display(`show thinking: ${shown ? 'on' : 'off'} (saved)`, theme.muted);
    }
    case 'theme':
      return options.dialogs.theme();
    case 'model':
      return options.dialogs.model();
    case 'keys':
      return options.display(hotkeysText(options.keybindings.file, options.keybindings.problems));
    default:
      return;
  }
}

async function thinkingLevel(options: OwnCommandsOptions): Promise<void> {
  const { tui, theme, session } = options;
  const now = session.reasoningLevel();
  const { result } = showSelectDialog<ReasoningChoice>(tui, {
    title: 'Thinking level',
    theme,
    items: REASONING_CHOICES.map((level) => ({
      value: level,
      label: level,
      current: level === now,
    })),
  });
  const picked = await result;
  if (!picked || picked.value === now) return;
  session.setReasoningLevel(picked.value);
  options.display(`thinking: ${picked.value} (saved)`, theme.muted);
}
