// The answers a person can give when a tool call waits for confirmation: the TUI's dialog, the
// RPC `confirm` request and the confirmation gate share this one list. No TypeBox here: the
// gate checks answers against it at run time.

/**
 * `allow` this call; `allow_tool_session` this tool and `allow_all_session` every tool until
 * the process ends; `allow_always_user` and `allow_always_project` also write the narrowest
 * allow rule for the call to the user's config.json or the project's .zot/settings.json;
 * `deny` refuses it.
 */
export const CONFIRM_DECISIONS = [
  'allow',
  'allow_tool_session',
  'allow_all_session',
  'allow_always_user',
  'allow_always_project',
  'deny',
] as const;

export type ConfirmDecision = (typeof CONFIRM_DECISIONS)[number];

export function isConfirmDecision(value: unknown): value is ConfirmDecision {
  return (CONFIRM_DECISIONS as readonly unknown[]).includes(value);
}
