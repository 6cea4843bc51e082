// The bounds of an extension tool result's details, without TypeBox: the host checks against
// them at run time, and contract/tool-details.ts puts them in the schema.

/** Bounds of an extension's details, checked where its tool_result enters zot. */
export const EXTENSION_DETAILS_LIMITS = {
  /** A diff's characters; a longer one is cut at a line and marked `truncated`. */
  diffChars: 100_000,
  /** A table's columns (more: the details are dropped) and rows (more: cut, `truncated`). */
  columns: 20,
  rows: 200,
  /** A column name's or a cell's characters; a longer one is cut with `…`. */
  cellChars: 500,
} as const;
