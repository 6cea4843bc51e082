// The runtime's state snapshot and its change events. The snapshot is recomputed after every
// event and every change the session makes itself, and a `state` event goes out only when a
// field differs from the last one sent: front ends redraw from it instead of re-deriving it.
import type { RuntimeState } from '../contract/state.js';
import type { SessionEvent } from '../contract/events.js';
import type { ExtensionHost } from '../extensions/host.js';

type OpenPanel = RuntimeState['open_panel'];

/** The host's open panel, as the snapshot shows it (absent fields left out). */
export function openPanelOf(host: ExtensionHost | undefined): OpenPanel {
  const panel = host?.openPanel();
  if (!panel) return null;
  return {
    extension: panel.extension,
    id: panel.id,
    ...(panel.title !== undefined ? { title: panel.title } : {}),
    lines: [...panel.lines],
    ...(panel.footer !== undefined ? { footer: panel.footer } : {}),
  };
}

/** Which extensions are ready, and which failed to load or died since, as the snapshot shows them. */
export function extensionsOf(host: ExtensionHost | undefined): RuntimeState['extensions'] {
  const loaded = (host?.running ?? []).filter((e) => e.state === 'ready').map((e) => e.name);
  const failedToLoad = (host?.lastReports ?? [])
    .filter((r) => r.status === 'failed' || r.status === 'manifest-error')
    .map((r) => r.name);
  const died = (host?.running ?? []).filter((e) => e.state === 'exited').map((e) => e.name);
  const remote = host?.remoteLinks() ?? [];
  return {
    loaded,
    failed: [...new Set([...failedToLoad, ...died])],
    ...(remote.length > 0 ? { remote } : {}),
  };
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
