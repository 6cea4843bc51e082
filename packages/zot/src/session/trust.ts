// The runtime's side of trust decisions made while zot runs (the TUI's trust dialog): the answers
// go to the trust store of the composition root; the extensions restart when what may run changed.
import type { ExtensionReport } from '../extensions/host.js';
import type {
  TrustAnswer,
  TrustDecision,
  TrustOutcome,
  TrustReview,
} from '../contract/front-end.js';

export type { TrustAnswer, TrustDecision, TrustOutcome, TrustReview };

/** Reviews and records trust; built lazily by the composition root (off the print path). */
export interface TrustAccess {
  reviews(): Promise<TrustReview[]>;
  /**
   * An error message, or undefined when the answer was applied. `replaces`: the global
   * extension directory the review said this one replaces.
   */
  decide(
    dir: string,
    hash: string,
    decision: TrustDecision,
    replaces?: string,
  ): Promise<string | undefined>;
}

/** Contract: never rejects; every failed answer is one message in `errors`. */
export async function applyTrustAnswers(
  access: TrustAccess,
  answers: readonly TrustAnswer[],
  reload: () => Promise<ExtensionReport[]>,
): Promise<TrustOutcome> {
  const errors: TrustOutcome['errors'] = [];
  let changed = false;
  for (const { review, decision } of answers) {
    const error = await access
      .decide(review.dir, review.hash, decision, review.replaces?.dir)
      .catch((thrown: unknown) => (thrown as Error).message ?? String(thrown));
    if (error !== undefined) errors.push({ dir: review.dir, message: error });
    // Starting one that did not run, or stopping one that ran for this session only.
    else if ((decision === 'skip') === (review.state === 'once')) changed = true;
  }
  if (!changed) return { errors };
  const reports = await reload().catch(() => undefined);
  return reports ? { errors, reports } : { errors };
}
