// A transcript message as the user sees it (RPC get_messages, the TUI's replay).
/**
 * A message as the user sees it: an assistant message an extension rewrote shows its `shown`
 * content (the transcript keeps what the model said, for the model). Others are unchanged.
 */
export function shownMessage<M extends { role: string; content: unknown[]; shown?: unknown[] }>(
  message: M,
): M {
  if (message.role !== 'assistant' || message.shown === undefined) return message;
  const { shown, ...rest } = message;
  return { ...rest, content: shown } as M;
}
