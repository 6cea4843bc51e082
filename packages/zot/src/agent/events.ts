// The agent's events: members of the one runtime event union defined in contract/events.ts.
export type { AgentEvent } from '../contract/events.js';
export type { Usage } from '../contract/usage.js';
