// zot's cancel of a tool call, as the signal the MCP SDK's `request` takes. The SDK reads only
// `aborted`, `reason`, `throwIfAborted()` and `addEventListener('abort')` of it (then sends
// notifications/cancelled and rejects the call). A real AbortSignal cost 6-7 µs of CPU a call
// between its controller (made by @zot/sdk for every call) and the listener the SDK adds; this
// one costs an object, and @zot/sdk makes no AbortController while no one reads `signal`.

type CancelHook = (listener: (reason: Error) => void) => void;

class CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  constructor(onCancel: CancelHook) {
    onCancel((reason) => {
      this.aborted = true;
      this.reason = reason;
      const listeners = this.listeners;
      this.listeners = [];
      for (const listener of listeners) listener();
    });
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    if (this.aborted) queueMicrotask(listener);
    else this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listeners = this.listeners.filter((l) => l !== listener);
  }
}

/** A signal for the MCP SDK that aborts when zot cancels the call. */
export function cancelSignal(onCancel: CancelHook): AbortSignal {
  return new CancelSignal(onCancel) as unknown as AbortSignal;
}
