// The trust dialog: at start for every project extension that is not trusted, and on /trust.
// Each one is shown with what it would run and what the answer pins; then all answers go to the
// runtime at once, so the extensions restart (at most) once.
import type { TUI } from '@mariozechner/pi-tui';
import { showChoiceDialog, type Choice } from '../../tui/choice-dialog.js';
import type { Style, Theme } from '../../tui/theme.js';
import { shellLine } from '../../util/shell-words.js';
import type {
  InteractiveSession,
  TrustAnswer,
  TrustDecision,
  TrustReview,
} from '../../contract/front-end.js';

export interface TrustSurface {
  display(text: string, style?: Style): void;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The dialog's text: where it is, what runs, what the hash covers. Raw; the dialog escapes it. */
export function reviewText(review: TrustReview): string {
  const lines = [review.dir];
  if (review.description) lines.push(review.description);
  lines.push('');
  lines.push(`runs:   ${shellLine(review.argv)}`);
  const files = `${review.files} file${review.files === 1 ? '' : 's'}, ${size(review.bytes)}`;
  lines.push(
    `files:  ${files}${review.covered.length > 0 ? ` + ${review.covered.join(', ')}` : ''}`,
  );
  if (review.scoped)
    lines.push(
      'access: sandboxed, with only its permissions:',
      ...review.summary.map((line) => `        ${line}`),
    );
  else lines.push('access: UNSCOPED, your full rights (no "permissions" block)');
  if (review.widened.length > 0)
    lines.push(
      'wider:  it asks for more than when you trusted it:',
      ...review.widened.map((line) => `        ${line}`),
    );
  lines.push(`hash:   ${review.hash}`);
  const state =
    review.state === 'once'
      ? 'running for this session only'
      : review.state === 'changed'
        ? `changed since you trusted it${review.trustedAt ? ` (${review.trustedAt.slice(0, 10)})` : ''}`
        : 'never trusted: it came with this project';
  lines.push(`state:  ${state}`);
  if (review.replaces) {
    // One path per line: the dialog is narrower than the terminal.
    lines.push(
      `clash:  your global extension ${review.replaces.name} has this name:`,
      `        ${review.replaces.dir}`,
      '        trusting or running this one replaces it in this project;',
      '        skipping keeps yours',
    );
  }
  return lines.join('\n');
}

function choicesFor(review: TrustReview): {
  choices: Choice<TrustDecision>[];
  cancel: TrustDecision;
} {
  const instead = review.replaces ? `, in place of your global ${review.replaces.name}` : '';
  const always: Choice<TrustDecision> = {
    value: 'always',
    label: `Trust it${instead} (pinned to this content: any change asks again)`,
    key: 't',
  };
  if (review.state === 'once') {
    return {
      choices: [always, { value: 'once', label: 'Keep it for this session only' }, stop()],
      cancel: 'once',
    };
  }
  return {
    choices: [
      always,
      { value: 'once', label: `Run it this session only${instead}`, key: 'o' },
      stop(),
    ],
    cancel: 'skip',
  };
}

function stop(): Choice<TrustDecision> {
  return { value: 'skip', label: 'Skip it: do not run it', key: 's' };
}

/** What the user is told about one applied answer. */
function outcomeLine(answer: TrustAnswer): string | undefined {
  const { review, decision } = answer;
  if (decision === 'always') return `trusted ${review.name}`;
  if (decision === 'once')
    return review.state === 'once' ? undefined : `${review.name} runs for this session only`;
  return review.state === 'once'
    ? `stopped ${review.name}`
    : `skipped ${review.name}: not started (/trust reviews it again)`;
}

/**
 * Asks about each review in turn. `atStart`: only what is untrusted now, and nothing is said when
 * there is nothing to ask. Contract: never rejects; every outcome is shown on the surface.
 */
export async function reviewTrust(options: {
  tui: TUI;
  theme: Theme;
  session: InteractiveSession;
  surface: TrustSurface;
  atStart: boolean;
}): Promise<void> {
  const { tui, theme, session, surface, atStart } = options;
  const reviews = (await session.trustReviews()).filter(
    (review) => !atStart || review.state !== 'once',
  );
  if (reviews.length === 0) {
    if (!atStart) surface.display('no project extension here waits for trust', theme.muted);
    return;
  }
  const answers: TrustAnswer[] = [];
  for (const [index, review] of reviews.entries()) {
    const counter = reviews.length > 1 ? ` (${index + 1} of ${reviews.length})` : '';
    const { choices, cancel } = choicesFor(review);
    const { result } = showChoiceDialog(tui, {
      title: `Project extension ${review.name}${counter}`,
      preview: reviewText(review),
      previewStyle: theme.text,
      choices,
      cancel,
      theme,
      legend: [['esc', review.state === 'once' ? 'keep' : 'skip']],
    });
    answers.push({ review, decision: await result });
  }
  const outcome = await session.decideTrust(answers);
  for (const answer of answers) {
    const line = outcomeLine(answer);
    if (line && !outcome.errors.some((error) => error.dir === answer.review.dir))
      surface.display(line, answer.decision === 'skip' ? theme.muted : theme.success);
  }
  for (const error of outcome.errors) surface.display(error.message, theme.error);
}
