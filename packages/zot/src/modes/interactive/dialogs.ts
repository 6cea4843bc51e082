// The TUI's dialogs over the runtime: /model (model-picker.ts), /sessions (session-picker.ts),
// /login (provider, masked key, checked before it is saved), /logout, /theme, /skills, /trust,
// and the --no-yolo question before a tool runs.
import type { TUI } from '@mariozechner/pi-tui';
import type { ConfirmDecision } from '../../contract/confirm.js';
import { showConfirmDialog, type ConfirmChoice } from '../../tui/confirm-dialog.js';
import { showSelectDialog } from '../../tui/select-dialog.js';
import { showTextPrompt } from '../../tui/text-prompt-dialog.js';
import type { Style, Theme, ThemeSpec } from '../../tui/theme.js';
import type { AskPerson, InteractiveSession, ProviderStatus } from '../../contract/front-end.js';
import { pickModel } from './model-picker.js';
import { rewindDialog } from './rewind-dialog.js';
import { cloneCommand, forkDialog, mergeDialog, treeDialog } from './tree-dialog.js';
import { DialogLine } from './dialog-line.js';
import { pickSession } from './session-picker.js';
import { reviewTrust } from './trust-dialog.js';

export interface DialogSurface {
  display(text: string, style?: Style): void;
  /** The chat shows a different transcript now (a resumed session). */
  replay(): void;
}

export interface ThemeChoice {
  list: readonly ThemeSpec[];
  current(): string;
  /** Shows `spec` now (the preview, and the choice). */
  apply(spec: ThemeSpec): void;
  /** Keeps the choice for the next run (config.json). Contract: may throw naming the file. */
  save(name: string): void;
}

export interface DialogsOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: DialogSurface;
  themes?: ThemeChoice;
  now?: () => number;
}

const DECISION_OF_CHOICE: Record<ConfirmChoice, ConfirmDecision> = {
  yes: 'allow',
  'always-tool': 'allow_tool_session',
  'always-all': 'allow_all_session',
  'always-user': 'allow_always_user',
  'always-project': 'allow_always_project',
  no: 'deny',
};

/** Contract: every method resolves (never rejects); outcomes are shown on the surface. */
export class Dialogs {
  constructor(private readonly options: DialogsOptions) {}

  /** The --no-yolo question: the tool, its preview, four choices; Enter is yes, Esc is no. */
  /** With `line`, it waits behind (and holds back) the extensions' questions sharing it. */
  confirmer(line: DialogLine = new DialogLine()): AskPerson {
    return (request, signal) => line.run(() => this.confirm(request, signal));
  }

  private async confirm(
    request: Parameters<AskPerson>[0],
    signal: AbortSignal,
  ): Promise<ConfirmDecision> {
    const { tui, theme } = this.options;
    // Withdrawn while it waited its turn (the turn was cancelled): it never shows.
    if (signal.aborted) return 'deny';
    const { result } = showConfirmDialog(tui, {
      toolName: request.tool_name,
      preview: request.tool_detail,
      theme,
      signal,
      // which rule asks (the dialog escapes it: a project's rule is untrusted text)
      ...(request.rule ? { title: `Allow ${request.tool_name}? Rule ${request.rule} asks` } : {}),
    });
    return DECISION_OF_CHOICE[await result];
  }

  /** /model: see model-picker.ts. */
  model(): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    return pickModel({ tui, theme, session, surface });
  }

  /** /sessions, and `zot -r` at launch (`atStart`): see session-picker.ts. */
  sessions(atStart = false): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    const now = this.options.now ?? Date.now;
    return pickSession({ tui, theme, session, surface, now, atStart });
  }

  /** /theme: every theme, previewed live as the highlight moves; Enter keeps it, Esc goes back. */
  async theme(): Promise<void> {
    const { tui, theme, surface } = this.options;
    const themes = this.options.themes;
    if (!themes) return surface.display('no themes to choose from', theme.muted);
    if (!theme.color)
      surface.display('NO_COLOR is set: the theme changes nothing now', theme.muted);
    const before = themes.current();
    const byName = new Map(themes.list.map((spec) => [spec.name, spec]));
    const { result } = showSelectDialog(tui, {
      title: 'Theme',
      theme,
      items: themes.list.map((spec) => ({
        value: spec.name,
        label: spec.name,
        current: spec.name === before,
        detail: spec.name === 'dark' || spec.name === 'light' ? 'built in' : 'extension',
      })),
      onHighlight: (item) => {
        const spec = item && byName.get(item.value);
        if (spec) themes.apply(spec);
      },
    });
    const picked = await result;
    if (!picked) {
      themes.apply(byName.get(before)!);
      return;
    }
    themes.apply(byName.get(picked.value)!);
    try {
      themes.save(picked.value);
      surface.display(`theme: ${picked.value} (saved)`, theme.muted);
    } catch (error) {
      surface.display(
        `theme: ${picked.value} (not saved: ${(error as Error).message})`,
        theme.warning,
      );
    }
  }

  /** /rewind and Esc Esc: a turn, what going back would change, then code, conversation or both. */
  rewind(): Promise<void> {
    const { tui, theme, session, surface, now } = this.options;
    return rewindDialog({ tui, theme, session, surface, ...(now ? { now } : {}) });
  }

  /** /tree [N]: the session's branches; Enter (or N) switches, ctrl+g merges. */
  tree(args = ''): Promise<void> {
    return treeDialog(this.options, args);
  }

  /** /fork [N]: a new session file from here or after prompt N. */
  fork(args = ''): Promise<void> {
    return forkDialog(this.options, args);
  }

  /** /clone: a copy of the session file, opened. */
  clone(): Promise<void> {
    return cloneCommand(this.options);
  }

  /** /merge [N [--messages M]]: a branch's summary brought into this one. */
  merge(args = ''): Promise<void> {
    return mergeDialog(this.options, args);
  }

  /** /trust (and at start, `atStart`): each project extension that is not trusted, one by one. */
  trust(atStart = false): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    return reviewTrust({ tui, theme, session, surface, atStart });
  }

  /** /skills: every skill (read afresh) with its source; Enter shows the skill's text. */
  async skills(): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    const catalog = await session.skills();
    if (!catalog) return surface.display('skills are off (--no-skill)', theme.muted);
    for (const warning of catalog.warnings) surface.display(warning, theme.warning);
    const { result } = showSelectDialog(tui, {
      title: `Skills (${catalog.skills.length})`,
      theme,
      emptyText: 'no skills',
      items: catalog.skills.map((skill) => ({
        value: skill.name,
        label: skill.name,
        description: skill.description,
        detail: skill.allowedTools
          ? `${skill.source} · ${skill.allowedTools.join(', ')}`
          : skill.source,
      })),
    });
    const picked = await result;
    if (!picked) return;
    const read = await session.skillBody(picked.value);
    if ('error' in read) return surface.display(read.error, theme.error);
    surface.display(`skill ${picked.value} (${read.file})\n\n${read.body}`, theme.text);
  }

  async login(): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    // Every provider: one on this machine needs no key, but may be given one (a proxy's).
    const provider = await this.pickProvider('Log in: which provider?', () => true);
    if (!provider) return;
    let message = '';
    let warning: string | undefined;
    const { result } = showTextPrompt(tui, {
      title: `API key for ${provider}`,
      message: 'Checked with one request to the provider before it is saved in auth.json.',
      mask: true,
      theme,
      checkingText: 'checking the key…',
      validate: async (key) => {
        const outcome = await session.login(provider, key);
        if (!outcome.ok) return outcome.error;
        message = outcome.message;
        warning = outcome.warning;
        return undefined;
      },
    });
    if ((await result) === undefined) return;
    surface.display(message, theme.success);
    if (warning) surface.display(warning, theme.warning);
  }

  async logout(): Promise<void> {
    const { theme, session, surface } = this.options;
    const provider = await this.pickProvider(
      'Log out: remove the saved key of',
      (p) => p.key_source === 'auth.json',
    );
    if (!provider) return;
    surface.display(
      session.logout(provider) ? `removed the saved ${provider} key` : `no saved ${provider} key`,
      theme.muted,
    );
  }

  private async pickProvider(
    title: string,
    offered: (status: ProviderStatus) => boolean,
  ): Promise<ProviderStatus['provider'] | undefined> {
    const { tui, theme, session, surface } = this.options;
    const providers = session.providers().filter(offered);
    if (providers.length === 0) {
      surface.display('no provider to choose from (no saved keys)', theme.muted);
      return undefined;
    }
    const { result } = showSelectDialog(tui, {
      title,
      theme,
      items: providers.map((status) => ({
        value: status.provider,
        label: status.provider,
        detail: status.key_source
          ? `key from ${status.key_source}`
          : status.needs_key
            ? 'no key'
            : 'no key needed (on this machine)',
      })),
    });
    return (await result)?.value;
  }
}

export { age, resumable, sessionDetail } from './session-picker.js';
