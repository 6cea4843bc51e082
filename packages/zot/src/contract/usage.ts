// Token counts and cost, defined once: the providers' counts of one call, the `usage` event,
// the state snapshot's totals and the session file all use these shapes.
import { Type, type Static } from '@sinclair/typebox';

const TokenFields = {
  input: Type.Number(),
  output: Type.Number(),
  cache_read: Type.Number(),
  cache_write: Type.Number(),
};

/** What a provider reports for one model call. */
export const TokenUsageSchema = Type.Object(TokenFields);
/** Token counts with their cost in US dollars. */
export const UsageSchema = Type.Object({ ...TokenFields, cost_usd: Type.Number() });

export type TokenUsage = Static<typeof TokenUsageSchema>;
export type Usage = Static<typeof UsageSchema>;
