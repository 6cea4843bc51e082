// What a RunningExtension is told by its host (the context), the states it goes through and the
// supervision fields of its manifest.
import type { FrameFromExtension } from '@zot/protocol';
import type { InterceptFailure, RestartPolicy } from '../ext-setup/manifest.js';
import type { RunningExtension } from './extension.js';
import type { ExtensionTimeouts } from './timeouts.js';

/** `exited`: gone after a successful load (its process exited, or it closed its stdout). */
export type ExtensionState = 'starting' | 'handshaking' | 'ready' | 'failed' | 'exited' | 'stopped';
export type ReadyKind = 'ready' | 'auto-ready';

/** Frames the host surfaces to the user rather than correlating. */
export type SurfacedFrame = Extract<
  FrameFromExtension,
  {
    type:
      | 'notify'
      | 'display'
      | 'clear_notes'
      | 'submit'
      | 'panel_render'
      | 'panel_close'
      | 'open_panel'
      | 'ui_request';
  }
>;

export interface ExtensionContext {
  timeouts: ExtensionTimeouts;
  hostInfo(): { zot_version: string; provider: string; model: string; cwd: string };
  /** Registrations of this extension changed (tools, commands, subscriptions). */
  onRegistrationChange(extension: RunningExtension): void;
  onFrame(extension: RunningExtension, frame: SurfacedFrame): void;
  /** The extension died (or stopped talking) after a successful load. */
  onCrash(extension: RunningExtension, message: string): void;
  /** It is ready (or auto-ready): its own registrations replace any remembered ones. */
  onReady?(extension: RunningExtension): void;
}

/** The manifest's supervision fields (design D24, D25), and its ready deadline. */
export interface ExtensionPolicy {
  interceptFailure: InterceptFailure;
  restart: RestartPolicy;
  /** Absent: the host's (`timeouts.readyMs`). */
  readyMs?: number;
}

export const DEFAULT_POLICY: ExtensionPolicy = { interceptFailure: 'allow', restart: 'on-failure' };

/** Why not running, while a restart is pending: callers are told to try again. */
export const RESTARTING = 'restarting, try again';
