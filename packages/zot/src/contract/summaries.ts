// What the runtime reports about itself on request: recorded sessions, models, commands and
// extension load reports. RPC responses carry them as they are; the runtime's own types are
// these (imported with `import type`), so the wire cannot drift from the code.
import { Type, type Static } from '@sinclair/typebox';

export const SessionSummarySchema = Type.Object(
  {
    path: Type.String(),
    name: Type.Optional(Type.String({ description: 'The name the user gave it' })),
    modified: Type.String({ description: 'Last written, ISO 8601' }),
    model: Type.Optional(Type.String({ description: '`provider/model` it last used' })),
    message_count: Type.Integer({ minimum: 0 }),
    answered: Type.Boolean({
      description:
        'The model answered at least once (false for a run that failed or was cancelled first)',
    }),
    cost_usd: Type.Number(),
    branches: Type.Optional(
      Type.Integer({
        minimum: 2,
        description: 'How many branches its tree holds; absent for a single one',
      }),
    ),
    first_prompt: Type.String({
      description: "The first prompt's first line, at most 200 characters",
    }),
    error: Type.Optional(
      Type.String({ description: 'The file could not be read; the other fields are then empty' }),
    ),
  },
  { additionalProperties: false, description: 'A recorded session of this directory' },
);

export const ModelSummarySchema = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    context_window: Type.Integer({ minimum: 0 }),
    max_output: Type.Integer({ minimum: 0 }),
    reasoning: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const CommandSummarySchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    argument_hint: Type.Optional(Type.String({ description: 'e.g. `[model id]`' })),
    source: Type.String({ description: '`builtin`, or the name of the extension' }),
    modes: Type.Array(
      Type.Union(['print', 'json', 'rpc', 'tui'].map((mode) => Type.Literal(mode))),
      { description: 'Where the command works' },
    ),
  },
  { additionalProperties: false },
);

const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((value) => Type.Literal(value)));
const Scope = literals(['flag', 'project', 'global']);

export const LoadStatusSchema = literals([
  'ready',
  'auto-ready',
  'failed',
  'disabled',
  'shadowed',
  'theme-only',
  'skill-only',
  'manifest-error',
  'untrusted',
]);

/** A process extension's `permissions` block (extension.json), as its manifest declares it. */
export const ExtensionPermissionsSchema = Type.Object(
  {
    fs: Type.Object({ read: Type.Array(Type.String()), write: Type.Array(Type.String()) }),
    net: Type.Union([Type.Boolean(), Type.Array(Type.String())], {
      description:
        'false: no network; true: the host network; a list: these hosts through the proxy',
    }),
    exec: Type.Union([Type.Literal(true), Type.Array(Type.String())], {
      description: 'Programs it may run besides its interpreter; true: all of PATH',
    }),
    env: Type.Array(Type.String(), { description: 'Variables passed through' }),
  },
  { additionalProperties: false },
);

/** What became of one discovered extension (`zot ext doctor`, RPC reload_extensions). */
export const ExtensionReportSchema = Type.Object(
  {
    name: Type.String(),
    dir: Type.String(),
    scope: Scope,
    status: LoadStatusSchema,
    error: Type.Optional(Type.String()),
    logPath: Type.Optional(Type.String()),
    shadowedBy: Type.Optional(Type.String()),
    shadowedByScope: Type.Optional(Scope),
    commands: Type.Array(Type.String()),
    tools: Type.Array(Type.Object({ name: Type.String(), deferred: Type.Boolean() })),
    events: Type.Array(Type.String()),
    intercepts: Type.Array(Type.String()),
    warnings: Type.Array(Type.String()),
    interceptFailure: Type.Optional(literals(['allow', 'block'])),
    restart: Type.Optional(literals(['on-failure', 'never'])),
    scoped: Type.Optional(
      Type.Boolean({
        description:
          'A process extension: true when it declares permissions (it runs sandboxed), false when unscoped (full rights)',
      }),
    ),
    permissions: Type.Optional(ExtensionPermissionsSchema),
    dataDir: Type.Optional(Type.String({ description: "A scoped extension's data directory" })),
    remote: Type.Optional(
      Type.Object(
        {
          transport: literals(['websocket', 'http']),
          url: Type.String({ description: 'Its URL, user information and secret values elided' }),
          connection: Type.Union(
            ['connecting', 'connected', 'reconnecting', 'down'].map((v) => Type.Literal(v)),
            { description: 'The state of its connection when the report was taken' },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    scopeWarning: Type.Optional(
      Type.String({
        description:
          'Said once at start: an unscoped extension runs although the sandbox is required',
      }),
    ),
  },
  { additionalProperties: false, description: 'What became of one discovered extension' },
);

export type SessionSummary = Static<typeof SessionSummarySchema>;
export type ModelSummary = Static<typeof ModelSummarySchema>;
export type CommandSummary = Static<typeof CommandSummarySchema>;
export type LoadStatus = Static<typeof LoadStatusSchema>;
export type ExtensionReport = Static<typeof ExtensionReportSchema>;
