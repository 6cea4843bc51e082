// The protocol-version-2 phases of the kit, run only for an extension whose hello asked for
// version 2: its questions answered with a value and then `unavailable`, a call cancelled right
// after it was sent, and a cancel and a ui_response for ids it never used. After each, a request
// it answered before (a probe) shows whether it still answers.
import type { Outcome } from './child.js';
import { noAnswer, notRunning, type Kit } from './kit.js';
import { ask, type Probe, type Request } from './probe.js';
import { type Check } from './report.js';
import { describeRequest, requestTarget, V2Observer, type UiAnswerMode } from './v2-observer.js';

/** Most distinct requests whose questions are asked again. */
export const MAX_ASKING = 5;
/** An id no request or question of the kit ever has. */
const UNKNOWN_ID = 'zot-ext-test-no-such-id';
/** The target of the checks with that id. */
const UNKNOWN_TARGET = 'unknown-id';

/** Starts watching a version-2 extension (called once hello has negotiated version 2). */
export function watchV2(kit: Kit): V2Observer {
  const { child, registry } = kit;
  const observer = new V2Observer(
    (frame) => child.send(frame),
    (name) =>
      registry.tools.delete(name) ||
      child.registrations.some(
        (line) => line.frame?.type === 'register_tool' && line.frame.name === name,
      ),
  );
  child.watcher = observer;
  child.cancelsAbandoned = true;
  return observer;
}

function replyName(frame: Request): string {
  if (frame.type === 'tool_call') return 'tool_result';
  if (frame.type === 'command_invoked') return 'command_response';
  return 'event_intercept_response';
}

/** Asks `probe` again; undefined when it answered, otherwise the failure, named `when`. */
async function stillAnswers(
  kit: Kit,
  base: Pick<Check, 'check' | 'target'>,
  probe: Probe,
  when: string,
): Promise<{ failed?: Check; outcome: Outcome }> {
  const { sent, outcome } = await ask(kit, probe.frame, probe.timeoutMs);
  const failed = noAnswer(base, sent, outcome, replyName(probe.frame), probe.timeoutMs);
  return failed
    ? { failed: { ...failed, message: `${when}: ${failed.message}` }, outcome }
    : { outcome };
}

/**
 * Each request that asked a question during the run is made again twice: the kit answers its
 * questions with a value, then with `unavailable`; each time the request must still be answered.
 */
export async function questions(kit: Kit, observer: V2Observer): Promise<void> {
  const asking = new Map<string, Request>();
  for (const asked of observer.questions) {
    if (!asked.during) {
      kit.checks.add({
        check: 'ui_request',
        target: asked.frame.kind,
        status: 'pass',
        message: `asked "${asked.frame.title}" outside any call; answered ${asked.answer}`,
      });
      continue;
    }
    const key = JSON.stringify(asked.during.frame);
    if (!asking.has(key) && asking.size < MAX_ASKING)
      asking.set(key, asked.during.frame as Request);
  }
  for (const frame of asking.values()) {
    const what = describeRequest(frame);
    const target = requestTarget(frame);
    const ms = frame.type === 'tool_call' ? kit.timeouts.toolMs : kit.timeouts.commandMs;
    for (const mode of ['value', 'unavailable'] as UiAnswerMode[]) {
      const base = { check: 'ui_request', target } as const;
      if (notRunning(kit, base)) return;
      observer.mode = mode;
      const before = observer.questions.length;
      const { sent, outcome } = await ask(kit, frame, ms);
      const asked = observer.questions.slice(before);
      const answers = asked.map((q) => q.answer).join(', ') || 'no question asked this time';
      const failed = noAnswer(base, sent, outcome, replyName(frame), ms);
      if (failed) {
        kit.checks.add({
          ...failed,
          message: `after the kit's ui_response (${answers}): ${failed.message}`,
        });
        break;
      }
      const kinds = [...new Set(asked.map((q) => q.frame.kind))].join(', ') || 'none';
      kit.checks.add({
        ...base,
        status: 'pass',
        ms: outcome.ms,
        message:
          mode === 'value'
            ? `asked (${kinds}), answered with a value: ${what} answered in ${outcome.ms} ms`
            : `asked (${kinds}), answered unavailable (as print and JSON runs do): ${what} answered in ${outcome.ms} ms`,
      });
    }
  }
  observer.mode = 'value';
}

/**
 * A call the extension answered before is sent again and cancelled at once: it must go on
 * answering, and stop sending progress for the cancelled call once it has read the cancel.
 */
export async function cancels(kit: Kit, observer: V2Observer, probes: Probe[]): Promise<void> {
  const probe =
    probes.find((p) => p.frame.type === 'tool_call') ??
    probes.find((p) => p.frame.type === 'command_invoked');
  const base: Pick<Check, 'check' | 'target'> = probe
    ? { check: 'cancel', target: requestTarget(probe.frame) }
    : { check: 'cancel' };
  if (notRunning(kit, base)) return;
  if (!probe) {
    kit.checks.skip(base, 'nothing to cancel: no tool or command of it answered');
    return;
  }
  const giveUp = new AbortController();
  const { id, outcome } = kit.child.request(probe.frame, probe.timeoutMs, giveUp.signal);
  observer.cancelling(id);
  giveUp.abort(); // the peer sends `cancel` with its id, as zot does on Esc
  await outcome;
  const after = await stillAnswers(kit, base, probe, `after cancel of ${probe.what}`);
  if (after.failed) {
    kit.checks.add({ ...after.failed, sent: JSON.stringify({ type: 'cancel', id }) });
    return;
  }
  observer.cancelRead(id);
  // Progress still coming for the cancelled call now would be its work going on.
  await kit.child.waitUntil(
    () => observer.lateAfterCancel(id).late > 0,
    Math.min(500, kit.timeouts.autoReadyMs),
  );
  const late = observer.lateAfterCancel(id);
  if (late.late > 0) {
    kit.checks.add({
      ...base,
      status: 'fail',
      message:
        `still sent tool_progress for the cancelled call after it had read the cancel ` +
        `(${late.late} line(s)): stop the call's work when cancel comes`,
      ...(late.line ? { frame: late.line } : {}),
      sent: JSON.stringify({ type: 'cancel', id }),
    });
    return;
  }
  const answered =
    kit.child.answersAfterCancel > 0
      ? '; its answer to the cancelled call came anyway (zot ignores it)'
      : '';
  kit.checks.add({
    ...base,
    status: 'pass',
    ms: after.outcome.ms,
    message: `cancelled right after it was sent; it still answers (${probe.what} in ${after.outcome.ms} ms)${answered}`,
  });
}

/** A cancel and a ui_response for ids it never used (late, raced): it must shrug them off. */
export async function strayIds(kit: Kit, probes: Probe[]): Promise<void> {
  const probe = probes[0];
  for (const [check, frame] of [
    ['cancel', { type: 'cancel', id: UNKNOWN_ID }],
    ['ui_request', { type: 'ui_response', id: UNKNOWN_ID, value: true }],
  ] as const) {
    const base = { check, target: UNKNOWN_TARGET } as const;
    if (notRunning(kit, base)) return;
    const sent = kit.child.send(frame);
    const when = `after a ${frame.type} for an id it never used`;
    if (!probe) {
      // Nothing it answered before to ask again: it must at least stay up for a moment.
      await kit.child.waitUntil(() => false, Math.min(300, kit.timeouts.autoReadyMs));
      kit.checks.add(
        kit.child.ended
          ? {
              ...base,
              status: 'fail',
              message: `the extension ${kit.child.exitText} ${when}`,
              sent,
            }
          : { ...base, status: 'pass', message: `still running ${when}` },
      );
      continue;
    }
    const after = await stillAnswers(kit, base, probe, when);
    kit.checks.add(
      after.failed
        ? { ...after.failed, sent }
        : {
            ...base,
            status: 'pass',
            ms: after.outcome.ms,
            message: `still answers ${when} (${probe.what} in ${after.outcome.ms} ms)`,
          },
    );
  }
}
