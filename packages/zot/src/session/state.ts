// The runtime's state snapshot and its change events. The snapshot is recomputed after every
// event and every change the session makes itself, and a `state` event goes out only when a
// field differs from the last one sent: front ends redraw from it instead of re-deriving it.
import type { RuntimeState } from '../contract/state.js';
import type { SessionEvent } from '../contract/events.js';

type OpenPanel = RuntimeState['open_panel'];

/** Follows the panel events, so the snapshot can say which panel is open. */
export function nextOpenPanel(current: OpenPanel, event: SessionEvent): OpenPanel {
  switch (event.type) {
    case 'ext_panel_open':
      return { extension: event.extension, ...event.panel };
    case 'ext_panel_render': {
      if (current?.id !== event.panel_id || current.extension !== event.extension) return current;
      const { type: _type, panel_id: _id, extension: _ext, ...content } = event;
      return { ...current, ...content };
    }
    case 'ext_panel_close':
      return current?.id === event.panel_id ? null : current;
    default:
      return current;
  }
}

/**
 * Sends `state` when the snapshot changed. Contract: `publish` never throws and never sends
 * two equal snapshots in a row.
 */
export class StatePublisher {
  private last = '';

  constructor(
    private readonly snapshot: () => RuntimeState,
    private readonly send: (event: SessionEvent) => void,
  ) {}

  publish(): void {
    let state: RuntimeState;
    try {
      state = this.snapshot();
    } catch {
      return;
    }
    const key = JSON.stringify(state);
    if (key === this.last) return;
    this.last = key;
    this.send({ type: 'state', ...state });
  }
}
