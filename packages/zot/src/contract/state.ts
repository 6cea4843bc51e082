// The runtime's state snapshot: what a front end needs to draw its status line and decide what
// it may do. `session.state()`, RPC `get_state` and the `state` event carry the same fields.
import { Type, type Static } from '@sinclair/typebox';
import { UsageSchema } from './usage.js';

/** The snapshot's fields, shared by the `state` event (at its top level) and get_state. */
export const StateFields = {
  provider: Type.String(),
  model: Type.String(),
  cwd: Type.String(),
  busy: Type.Boolean({ description: 'A prompt, command or compaction is running' }),
  queue_length: Type.Integer({ minimum: 0, description: 'Prompts waiting behind the running one' }),
  message_count: Type.Integer({ minimum: 0 }),
  session_file: Type.Union([Type.String(), Type.Null()]),
  session_name: Type.Optional(
    Type.String({ description: 'The name the user gave the session (/name); absent when unnamed' }),
  ),
  usage: UsageSchema,
  context: Type.Object(
    {
      used: Type.Integer({ minimum: 0, description: "Tokens the last model call's context held" }),
      window: Type.Integer({ minimum: 0, description: "The model's context window" }),
    },
    { description: 'The context meter: how full the context was at the last model call' },
  ),
  yolo: Type.Boolean({ description: 'Tools run without asking' }),
  sandbox: Type.Object(
    {
      mode: Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('required')]),
      status: Type.Union(
        [
          Type.Literal('off'),
          Type.Literal('checking'),
          Type.Literal('active'),
          Type.Literal('unavailable'),
        ],
        {
          description:
            'active: bash commands run sandboxed; unavailable: it cannot start here (mode on: commands run without it; required: they are refused)',
        },
      ),
      network: Type.Union([Type.Boolean(), Type.Array(Type.String())], {
        description: 'sandbox.network: false, true, or the hosts the proxy lets through',
      }),
      problem: Type.Optional(
        Type.String({ description: 'Why it cannot start, and the fix (when unavailable)' }),
      ),
    },
    { description: "The bash tool's sandbox (docs/security.md)" },
  ),
  extensions: Type.Object({
    loaded: Type.Array(Type.String(), { description: 'Running extensions, in load order' }),
    failed: Type.Array(Type.String(), { description: 'Extensions that failed or died' }),
    remote: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String(),
            transport: Type.Union([Type.Literal('websocket'), Type.Literal('http')]),
            url: Type.String({ description: 'Its URL, user information and secret values elided' }),
            connection: Type.Union(
              ['connecting', 'connected', 'reconnecting', 'down'].map((v) => Type.Literal(v)),
            ),
            retry_at: Type.Optional(
              Type.Integer({
                description: 'reconnecting: when the next attempt is due (epoch ms)',
              }),
            ),
            reason: Type.Optional(Type.String({ description: 'down: why' })),
          },
          { additionalProperties: false },
        ),
        { description: 'Remote extensions and their connections (present when there are any)' },
      ),
    ),
  }),
  commands_revision: Type.Integer({
    minimum: 0,
    description:
      'Changes whenever the slash commands on offer change (an extension registered or lost one, a reload): list them again',
  }),
  open_panel: Type.Union([
    Type.Null(),
    Type.Object({
      extension: Type.String(),
      id: Type.String(),
      title: Type.Optional(Type.String()),
      lines: Type.Optional(Type.Array(Type.String())),
      footer: Type.Optional(Type.String()),
    }),
  ]),
};

export const StateSchema = Type.Object(StateFields);
export type RuntimeState = Static<typeof StateSchema>;
