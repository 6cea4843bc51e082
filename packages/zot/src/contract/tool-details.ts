// What a built-in tool reports for the UI beside the content the model reads (ARCHITECTURE 16):
// a structured diff, an exit code, a line range. The model never sees `details`; a front end
// renders from it instead of parsing result text. Schema-first like the rest of contract/.
import { Type, type Static } from '@sinclair/typebox';
import { EXTENSION_DETAILS_LIMITS } from './details-limits.js';

export { EXTENSION_DETAILS_LIMITS } from './details-limits.js';

const Count = Type.Integer({ minimum: 0 });
const Path = Type.String({ description: 'The path as the call gave it' });

export const DiffHunkSchema = Type.Object({
  old_start: Count,
  old_lines: Count,
  new_start: Count,
  new_lines: Count,
  lines: Type.Array(Type.String(), {
    description:
      "Unified-diff lines without line ending: ' ' context, '-' removed, '+' added, '\\' a note (no newline at end of file)",
  }),
});

export const EditDetailsSchema = Type.Object(
  {
    kind: Type.Literal('edit'),
    path: Path,
    added: Count,
    removed: Count,
    hunks: Type.Array(DiffHunkSchema),
    truncated: Type.Optional(
      Type.Boolean({ description: 'Hunks were cut at the diff limit; the counts are whole' }),
    ),
  },
  { description: 'edit: the change as a structured diff' },
);

export const BashDetailsSchema = Type.Object(
  {
    kind: Type.Literal('bash'),
    exit_code: Type.Optional(Type.Integer({ description: 'Absent when no exit code exists' })),
    signal: Type.Optional(Type.String({ description: 'The signal that killed the command' })),
    timed_out: Type.Boolean(),
    aborted: Type.Boolean(),
    truncated: Type.Boolean({ description: 'Only the tail of the output is in the content' }),
    full_output_path: Type.Optional(
      Type.String({ description: 'Where the full output was saved when truncated' }),
    ),
  },
  { description: 'bash: how the command ended' },
);

export const ReadDetailsSchema = Type.Object(
  {
    kind: Type.Literal('read'),
    path: Path,
    total_lines: Type.Optional(Count),
    first_line: Type.Optional(Type.Integer({ minimum: 1, description: 'First line shown' })),
    last_line: Type.Optional(Type.Integer({ minimum: 1, description: 'Last line shown' })),
    mime_type: Type.Optional(Type.String({ description: 'Set when the file is an image' })),
  },
  { description: 'read: which lines of how many were shown (or which image)' },
);

export const WriteDetailsSchema = Type.Object(
  {
    kind: Type.Literal('write'),
    path: Path,
    bytes: Count,
    created: Type.Boolean({ description: 'False when an existing file was replaced' }),
  },
  { description: 'write: what was written' },
);

const Truncated = Type.Optional(
  Type.Boolean({ description: 'zot cut it to its bounds (the extension sent more)' }),
);

export const DiffDetailsSchema = Type.Object(
  {
    kind: Type.Literal('diff'),
    diff: Type.String({
      maxLength: EXTENSION_DETAILS_LIMITS.diffChars,
      description: 'A unified diff (`--- a`, `+++ b`, `@@ -1,2 +1,3 @@` hunks)',
    }),
    truncated: Truncated,
  },
  { description: "An extension tool's change, shown as a coloured diff" },
);

const Cell = Type.String({ maxLength: EXTENSION_DETAILS_LIMITS.cellChars });
export const TableDetailsSchema = Type.Object(
  {
    kind: Type.Literal('table'),
    columns: Type.Array(Cell, { minItems: 1, maxItems: EXTENSION_DETAILS_LIMITS.columns }),
    rows: Type.Array(Type.Array(Cell, { maxItems: EXTENSION_DETAILS_LIMITS.columns }), {
      maxItems: EXTENSION_DETAILS_LIMITS.rows,
      description: 'Cells as text (numbers and booleans the extension sent are written out)',
    }),
    truncated: Truncated,
  },
  { description: "An extension tool's table, shown with aligned columns" },
);

export const ToolDetailsSchema = Type.Union(
  [
    EditDetailsSchema,
    BashDetailsSchema,
    ReadDetailsSchema,
    WriteDetailsSchema,
    DiffDetailsSchema,
    TableDetailsSchema,
  ],
  { description: 'For the UI, by `kind`; never sent to the model' },
);

export type DiffHunk = Static<typeof DiffHunkSchema>;
export type EditDetails = Static<typeof EditDetailsSchema>;
export type DiffDetails = Static<typeof DiffDetailsSchema>;
export type TableDetails = Static<typeof TableDetailsSchema>;
export type BashDetails = Static<typeof BashDetailsSchema>;
/** The details a tool result may carry for the UI. */
export type ToolDetails = Static<typeof ToolDetailsSchema>;
