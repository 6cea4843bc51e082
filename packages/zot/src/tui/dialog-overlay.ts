// How a dialog appears and ends: shown as an overlay over the chat, answered once (a cancel is an
// answer too), closed by Esc or Ctrl+C.
import {
  matchesKey,
  type Component,
  type OverlayHandle,
  type OverlayOptions,
  type TUI,
} from '@mariozechner/pi-tui';

/** Where dialogs appear unless told otherwise: centred, most of the width, at least 56 columns. */
export const DIALOG_OVERLAY: OverlayOptions = {
  anchor: 'center',
  width: '70%',
  minWidth: 56,
  maxHeight: '90%',
};

/** Esc or Ctrl+C: what closes a dialog or panel without an answer. */
export function isCancelKey(data: string): boolean {
  return matchesKey(data, 'escape') || matchesKey(data, 'ctrl+c');
}

/** A dialog's one answer: the first one given (a cancel included) is delivered, later ones not. */
export class OneAnswer {
  private given = false;

  get done(): boolean {
    return this.given;
  }

  /** Runs `deliver` unless an answer was given before. */
  give(deliver: () => void): void {
    if (this.given) return;
    this.given = true;
    deliver();
  }
}

/**
 * Shows the dialog `make` builds as an overlay (DIALOG_OVERLAY unless `overlay` is given).
 * `close(value)` hides it, which gives focus back, then resolves `result` with `value`.
 */
export function showDialog<D extends Component, R>(
  tui: TUI,
  overlay: OverlayOptions | undefined,
  make: (close: (value: R) => void) => D,
): { dialog: D; result: Promise<R> } {
  let resolve!: (value: R) => void;
  const result = new Promise<R>((r) => (resolve = r));
  let handle: OverlayHandle | undefined;
  const dialog = make((value) => {
    handle?.hide();
    resolve(value);
  });
  handle = tui.showOverlay(dialog, overlay ?? DIALOG_OVERLAY);
  return { dialog, result };
}
