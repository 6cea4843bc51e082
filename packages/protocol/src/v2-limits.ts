// Bounds and vocabularies of the version-2 frames (frames-v2.ts), without TypeBox: the host and
// the SDKs check against them before sending.

/** Bounds of the version-2 frames (also what the SDKs check before sending). */
export const V2_LIMITS = {
  /** One progress line, in characters. */
  progressText: 4096,
  /** A dialog's title, in characters. */
  uiTitle: 1000,
  /** Options of a select dialog, and each option's characters. */
  uiOptions: 100,
  uiOption: 500,
  /** Longest deadline an extension may ask for (one hour). */
  uiTimeoutMs: 3_600_000,
  /** A typed answer, in characters. */
  uiValue: 100_000,
} as const;

export const UI_KINDS = ['confirm', 'select', 'input'] as const;
export type UiKind = (typeof UI_KINDS)[number];
