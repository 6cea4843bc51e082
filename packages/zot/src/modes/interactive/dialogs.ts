// The TUI's dialogs over the runtime: /model (a searchable picker that always lists the model in
// use), /sessions (resume or rename one of this directory's sessions), /login (provider, masked
// key, checked before it is saved), /logout, and the --no-yolo question before a tool runs.
import type { TUI } from '@mariozechner/pi-tui';
import type { ConfirmDecision } from '../../contract/confirm.js';
import { showConfirmDialog, type ConfirmChoice } from '../../tui/confirm-dialog.js';
import { showSelectDialog, type SelectDialogItem } from '../../tui/select-dialog.js';
import { showTextPrompt } from '../../tui/text-prompt-dialog.js';
import type { Style, Theme, ThemeSpec } from '../../tui/theme.js';
import type { AskPerson, InteractiveSession, ProviderStatus } from '../../contract/front-end.js';
import type { SessionSummary } from '../../contract/summaries.js';
import { rewindDialog } from './rewind-dialog.js';
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

/** `3m`, `5h`, `2d` ago: how /sessions shows age. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** Contract: every method resolves (never rejects); outcomes are shown on the surface. */
export class Dialogs {
  constructor(private readonly options: DialogsOptions) {}

  /** The --no-yolo question: the tool, its preview, four choices; Enter is yes, Esc is no. */
  confirmer(): AskPerson {
    const { tui, theme } = this.options;
    return async (request, signal) => {
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
    };
  }

  async model(): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    const current = session.state();
    const items: SelectDialogItem<string>[] = session.models().map((model) => ({
      value: `${model.provider}/${model.id}`,
      label: model.id,
      description: model.provider,
      detail: `${Math.round(model.contextWindow / 1000)}k context${model.reasoning ? ' · reasoning' : ''}`,
      current: model.provider === current.provider && model.id === current.model,
    }));
    // The model in use is listed even when no catalog knows it (a local server's id).
    if (!items.some((item) => item.current)) {
      items.unshift({
        value: `${current.provider}/${current.model}`,
        label: current.model,
        description: current.provider,
        detail: 'in use',
        current: true,
      });
    }
    const { result } = showSelectDialog(tui, { title: 'Model', items, theme });
    const picked = await result;
    if (!picked || picked.current) return;
    try {
      const model = session.setModel(picked.value);
      surface.display(`model: ${model.provider}/${model.id} (saved for the next run)`, theme.muted);
    } catch (error) {
      surface.display((error as Error).message, theme.error);
    }
  }

  async sessions(): Promise<void> {
    const { tui, theme, session, surface } = this.options;
    const now = this.options.now ?? Date.now;
    const open = session.state().session_file;
    const toItems = (list: SessionSummary[]): SelectDialogItem<string>[] =>
      list.map((summary) => ({
        value: summary.path,
        label: age(summary.modified, now()),
        description: summary.error
          ? `unreadable: ${summary.error}`
          : (summary.name ?? (summary.first_prompt || '(no prompt)')),
        detail: sessionDetail(summary),
        current: summary.path === open,
        searchText: `${summary.name ?? ''} ${summary.first_prompt} ${summary.model ?? ''}`,
      }));
    const list = resumable(session.sessions());
    if (list.length === 0) {
      surface.display('no recorded sessions in this directory yet', theme.muted);
      return;
    }
    const { dialog, result } = showSelectDialog(tui, {
      title: 'Sessions (newest first)',
      items: toItems(list),
      theme,
      actions: [
        {
          key: 'ctrl+r',
          name: 'rename',
          run: (item) =>
            void this.rename(item.value, () =>
              dialog.setItems(toItems(resumable(session.sessions()))),
            ),
        },
      ],
    });
    const picked = await result;
    if (!picked || picked.current) return;
    try {
      session.resume(picked.value);
      surface.replay();
      surface.display(`resumed ${picked.value}`, theme.muted);
    } catch (error) {
      surface.display((error as Error).message, theme.error);
    }
  }

  private async rename(path: string, done: () => void): Promise<void> {
    const { tui, theme, session } = this.options;
    const { result } = showTextPrompt(tui, {
      title: 'Rename session',
      theme,
      validate: (value) => {
        try {
          session.renameSession(path, value);
          return undefined;
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
    await result;
    done();
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

/** `model · 1 message · $0.02`. */
export function sessionDetail(summary: SessionSummary): string {
  const count = summary.message_count;
  const messages = `${count} message${count === 1 ? '' : 's'}`;
  return `${summary.model ?? '?'} · ${messages} · $${summary.cost_usd.toFixed(2)}`;
}

/**
 * The sessions worth offering: a run that failed (or was cancelled) before the model answered
 * holds nothing to go back to; an unreadable file is still shown, with why.
 */
export function resumable(list: readonly SessionSummary[]): SessionSummary[] {
  return list.filter((summary) => summary.answered || summary.error !== undefined);
}
