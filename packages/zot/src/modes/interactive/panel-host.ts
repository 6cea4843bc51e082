// Extension panels in the TUI: one open at a time, as an overlay with the focus. Keys go to the
// extension as panel_key in the order typed; Esc and Ctrl+C close it (the extension hears
// panel_close); panel_render from its owner redraws it; a close from the host (the extension
// closed it, died, or another panel replaced it) takes it away.
import type { OverlayHandle, TUI } from '@mariozechner/pi-tui';
import { PanelView, type PanelContent } from '../../tui/panel-view.js';
import type { Theme } from '../../tui/theme.js';
import type { InteractiveSession } from '../../contract/front-end.js';

interface OpenPanel {
  extension: string;
  id: string;
  view: PanelView;
  handle: OverlayHandle;
}

export interface PanelHostOptions {
  tui: TUI;
  theme: Theme;
  session: Pick<InteractiveSession, 'panelKey' | 'closePanel'>;
  /** A key the extension could not take (its panel went away meanwhile). */
  warn(message: string): void;
}

/** Contract: never throws; at most one panel is shown. */
export class PanelHost {
  private current: OpenPanel | undefined;

  constructor(private readonly options: PanelHostOptions) {}

  get openId(): string | undefined {
    return this.current?.id;
  }

  open(extension: string, panel: PanelContent & { id: string }): void {
    const { tui, theme, session } = this.options;
    if (this.current) this.hide();
    const id = panel.id;
    const view = new PanelView({
      theme,
      maxRows: () => Math.max(6, Math.floor(tui.terminal.rows * 0.8)),
      onKey: (key, text) => {
        const sent = session.panelKey(id, key, text);
        if (!sent.ok && this.current?.id === id) {
          this.options.warn(sent.error);
          this.hide();
        }
      },
      onClose: () => {
        session.closePanel(id);
        this.hide();
      },
    });
    view.set(panel);
    const handle = tui.showOverlay(view, {
      anchor: 'center',
      width: '80%',
      minWidth: 30,
      maxHeight: '90%',
    });
    this.current = { extension, id, view, handle };
    tui.requestRender();
  }

  /** panel_render: only the open panel of that extension is redrawn. */
  render(extension: string, id: string, content: PanelContent): void {
    const panel = this.current;
    if (!panel || panel.extension !== extension || panel.id !== id) return;
    panel.view.set(content);
    this.options.tui.requestRender();
  }

  /** The host closed it (the extension, a crash, a replacement). */
  closed(extension: string, id: string): void {
    const panel = this.current;
    if (panel && panel.extension === extension && panel.id === id) this.hide();
  }

  private hide(): void {
    this.current?.handle.hide();
    this.current = undefined;
    this.options.tui.requestRender();
  }
}
