// ext.ui: questions to the user (ui_request), each answered by one ui_response of its id.
import { V2_LIMITS, type UiKind, type UiResponseFrame } from '@zot/protocol';
import type { ExtensionUiApi, UiAnswer, UiOptions } from './extension-types.js';
import type { FrameFromExtension } from '@zot/protocol';

type Settle = (frame: UiResponseFrame | undefined) => void;

/** Contract: every question settles once, with the host's answer or `cancelled` on shutdown. */
export class UiQuestions implements ExtensionUiApi {
  private nextId = 1;
  private readonly waiting = new Map<string, Settle>();

  constructor(private readonly send: (frame: FrameFromExtension) => void) {}

  confirm(title: string, options: UiOptions = {}): Promise<UiAnswer<boolean>> {
    return this.ask('confirm', title, options, {}, (value) =>
      typeof value === 'boolean' ? value : undefined,
    );
  }

  select(
    title: string,
    choices: readonly string[],
    options: UiOptions = {},
  ): Promise<UiAnswer<string>> {
    if (choices.length === 0 || choices.length > V2_LIMITS.uiOptions)
      throw new RangeError(`@zot/sdk: ui.select needs 1 to ${V2_LIMITS.uiOptions} choices`);
    return this.ask('select', title, options, { options: [...choices] }, (value) =>
      typeof value === 'string' && choices.includes(value) ? value : undefined,
    );
  }

  input(
    title: string,
    options: UiOptions & { readonly mask?: boolean } = {},
  ): Promise<UiAnswer<string>> {
    const extra = options.mask ? { mask: true } : {};
    return this.ask('input', title, options, extra, (value) =>
      typeof value === 'string' ? value : undefined,
    );
  }

  /** A ui_response: settles its question; one for no question is ignored. */
  answer(frame: UiResponseFrame): void {
    const settle = this.waiting.get(frame.id);
    if (!settle) return;
    this.waiting.delete(frame.id);
    settle(frame);
  }

  /** zot is going away: every open question is cancelled. */
  close(): void {
    for (const settle of [...this.waiting.values()]) settle(undefined);
    this.waiting.clear();
  }

  private ask<T>(
    kind: UiKind,
    title: string,
    options: UiOptions,
    extra: { options?: string[]; mask?: boolean },
    read: (value: unknown) => T | undefined,
  ): Promise<UiAnswer<T>> {
    const id = `ui${this.nextId++}`;
    const timeout =
      options.timeoutMs === undefined
        ? {}
        : {
            timeout_ms: Math.max(1, Math.min(V2_LIMITS.uiTimeoutMs, Math.round(options.timeoutMs))),
          };
    return new Promise((resolve) => {
      this.waiting.set(id, (frame) => {
        if (frame?.unavailable) return resolve({ ok: false, reason: 'unavailable' });
        const value = frame?.cancelled ? undefined : read(frame?.value);
        resolve(value === undefined ? { ok: false, reason: 'cancelled' } : { ok: true, value });
      });
      try {
        this.send({ type: 'ui_request', id, kind, title, ...extra, ...timeout });
      } catch (error) {
        this.waiting.delete(id);
        throw error;
      }
    });
  }
}
