// The model picker (/model): the models of the providers zot can call now (a key, none needed,
// or a base URL of the user's), searchable, the model in use always listed; ctrl+a shows every
// provider's models, those without a key marked.
import type { TUI } from '@mariozechner/pi-tui';
import { showSelectDialog, type SelectDialogItem } from '../../tui/select-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';
import type { InteractiveSession } from '../../contract/front-end.js';

export interface ModelPickerOptions {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: { display(text: string, style?: Style): void };
}

/** Contract: resolves once the picker is closed (never rejects); outcomes are on the surface. */
export async function pickModel(options: ModelPickerOptions): Promise<void> {
  const { tui, theme, session, surface } = options;
  const current = session.state();
  const ready = new Set(
    session
      .providers()
      .filter((status) => status.ready)
      .map((status) => status.provider as string),
  );
  const all: SelectDialogItem<string>[] = session.models().map((model) => ({
    value: `${model.provider}/${model.id}`,
    label: model.id,
    description: model.provider,
    detail:
      `${Math.round(model.contextWindow / 1000)}k context${model.reasoning ? ' · reasoning' : ''}` +
      (ready.has(model.provider) ? '' : ' · no key'),
    current: model.provider === current.provider && model.id === current.model,
  }));
  // The model in use is listed even when no catalog knows it (a local server's id).
  if (!all.some((item) => item.current)) {
    all.unshift({
      value: `${current.provider}/${current.model}`,
      label: current.model,
      description: current.provider,
      detail: 'in use',
      current: true,
    });
  }
  const withKeys = all.filter((item) => item.current || ready.has(item.description ?? ''));
  // Nothing to filter (every provider has a key): the whole list, no toggle.
  const filters = withKeys.length < all.length;
  let showAll = !filters;
  const title = () =>
    showAll
      ? filters
        ? 'Model: every provider (ctrl+a: only those with a key)'
        : 'Model'
      : 'Model: providers with a key (ctrl+a: every provider)';
  const { dialog, result } = showSelectDialog(tui, {
    title: title(),
    items: showAll ? all : withKeys,
    theme,
    ...(filters
      ? {
          actions: [
            {
              key: 'ctrl+a' as const,
              name: 'all',
              always: true as const,
              run: () => {
                showAll = !showAll;
                dialog.setTitle(title());
                dialog.setItems(showAll ? all : withKeys);
                tui.requestRender();
              },
            },
          ],
        }
      : {}),
  });
  const picked = await result;
  if (!picked || picked.current) return;
  try {
    const model = session.setModel(picked.value);
    surface.display(`model: ${model.provider}/${model.id} (saved for the next run)`, theme.muted);
  } catch (error) {
    surface.display((error as Error).message, theme.error);
  }
}
