// The end of the conversation: were all frames valid, does `shutdown` get a `shutdown_ack` and
// an exit within the grace (design D18), and is nothing of the extension left running.
import { NOT_FOR_REMOTE, type Kit } from './kit.js';
import { descendants, killIfSame, stillRunning, type ProcessInfo } from './procs.js';

/** Every line after hello: valid UTF-8 JSON, a known frame type, fields of the right types. */
export function frames(kit: Kit): void {
  const { stats } = kit.child;
  const { checks } = kit;
  const problems: string[] = [];
  if (stats.invalid.count > 0) problems.push(`${stats.invalid.count} invalid`);
  if (stats.oversize.count > 0) problems.push(`${stats.oversize.count} over the 32 MiB limit`);
  if (problems.length > 0) {
    const first = stats.invalid.samples[0];
    const why = first ? first.error : `a line of ${stats.oversize.samples[0]} bytes`;
    checks.add({
      check: 'frames',
      status: 'fail',
      message: `of ${stats.total} line(s) after hello, ${problems.join(' and ')} (zot drops and logs each); first: ${why}`,
      ...(first && first.line !== '' ? { frame: first.line } : {}),
    });
    return;
  }
  if (stats.unknownTypes.count > 0) {
    checks.add({
      check: 'frames',
      status: 'warn',
      message: `${stats.unknownTypes.count} frame(s) of a type zot does not know (ignored and logged)`,
      frame: stats.unknownTypes.samples[0]!,
    });
    return;
  }
  if (stats.unsolicited.count > 0) {
    checks.add({
      check: 'frames',
      status: 'warn',
      message:
        `${stats.unsolicited.count} repl(ies) to no pending request (a late answer, a second ` +
        `answer or a wrong id; zot ignores them)`,
      frame: stats.unsolicited.samples[0]!,
    });
    return;
  }
  checks.add({
    check: 'frames',
    status: 'pass',
    message: `${stats.total} frame(s) after hello, all valid`,
  });
}

/**
 * Sends `shutdown` and waits the grace for the exit, then does what zot does: closes stdin,
 * SIGTERM to the group, SIGKILL after a second. Returns the descendants seen before.
 */
export async function shutdown(kit: Kit): Promise<ProcessInfo[]> {
  const { child, checks, timeouts } = kit;
  const before = child.pid !== undefined ? descendants(child.pid) : [];
  if (child.ended || child.exit) {
    checks.skip({ check: 'shutdown' }, `not run: the extension ${child.exitText} earlier`);
    await child.terminate();
    return before;
  }
  const sentAt = Date.now();
  child.send({ type: 'shutdown' });
  const exited = await child.waitForExit(timeouts.shutdownGraceMs);
  const ack = child.shutdownAckAt !== undefined ? child.shutdownAckAt - sentAt : undefined;
  if (kit.remote && !exited) {
    // zot closes the connection itself after the grace: slow to exit, but nothing is left.
    await child.terminate();
    checks.add({
      check: 'shutdown',
      status: ack !== undefined ? 'warn' : 'fail',
      message:
        `${ack !== undefined ? `shutdown_ack after ${ack} ms, but` : 'no shutdown_ack and'} the ` +
        `connection stayed open for the whole grace (${timeouts.shutdownGraceMs} ms), so zot's ` +
        'exit waited for it before closing it; end the session after shutdown_ack',
    });
    return before;
  }
  if (exited) {
    const ms = Date.now() - sentAt;
    if (ack !== undefined)
      checks.add({
        check: 'shutdown',
        status: 'pass',
        ms,
        message: `shutdown_ack after ${ack} ms; it ${child.exitText}`,
      });
    else
      checks.add({
        check: 'shutdown',
        status: 'warn',
        ms,
        message: `it ${child.exitText} without sending shutdown_ack (zot waits for the exit; send the ack too)`,
      });
  } else {
    child.closeStdin();
    const result = await child.terminate();
    const how =
      result === 'killed'
        ? `SIGTERM to its process group was not enough, SIGKILL after ${timeouts.killGraceMs} ms was`
        : 'stdin closed and SIGTERM to its process group stopped it';
    checks.add({
      check: 'shutdown',
      status: 'fail',
      message:
        `no exit within ${timeouts.shutdownGraceMs} ms of shutdown ` +
        `(${ack !== undefined ? `shutdown_ack after ${ack} ms` : 'no shutdown_ack'}); ${how}`,
    });
  }
  return before;
}

function describe(list: ProcessInfo[]): string {
  const shown = list.slice(0, 5).map((info) => `${info.pid} (${info.comm})`);
  return shown.join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
}

/**
 * Nothing left: its process group is empty once the extension has gone (members left behind
 * are a warning: zot's SIGTERM to the group stops them), and no descendant escaped the group
 * (a failure: zot cannot stop it). The kit stops what it finds.
 */
export async function processes(kit: Kit, before: ProcessInfo[]): Promise<void> {
  const { child, checks, timeouts } = kit;
  const pid = child.pid;
  if (kit.remote) {
    checks.skip(
      { check: 'processes' },
      `${NOT_FOR_REMOTE} its processes run on its server, out of zot's reach; the connection is closed`,
    );
    return;
  }
  if (pid === undefined) {
    checks.skip({ check: 'processes' }, 'not run: no process was started');
    return;
  }
  const inGroup = before.filter((info) => info.pgrp === pid && stillRunning(info));
  let groupLeft = child.groupAlive();
  if (groupLeft) {
    await child.terminate();
    groupLeft = child.groupAlive();
  }
  let escaped = before.filter((info) => info.pgrp !== pid && stillRunning(info));
  // A scoped extension runs in its own session inside bwrap: what is in there ends with bwrap
  // (the kernel ends a PID namespace with its first process), a moment after it.
  if (escaped.length > 0 && kit.manifest.permissions) {
    const until = Date.now() + timeouts.killGraceMs;
    while (escaped.length > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      escaped = escaped.filter((info) => stillRunning(info));
    }
  }
  for (const info of escaped) killIfSame(info);
  if (groupLeft) {
    checks.add({
      check: 'processes',
      status: 'fail',
      message: `its process group ${pid} survived SIGKILL`,
    });
  } else if (escaped.length > 0) {
    checks.add({
      check: 'processes',
      status: 'fail',
      message:
        `left running outside its process group, where zot cannot stop it: ${describe(escaped)} ` +
        '(killed by the kit); do not detach children (setsid, detached: true)',
    });
  } else if (inGroup.length > 0) {
    checks.add({
      check: 'processes',
      status: 'warn',
      message: `left ${describe(inGroup)} in its process group after exiting; zot's SIGTERM to the group stopped them`,
    });
  } else {
    checks.add({ check: 'processes', status: 'pass', message: `process group ${pid} is empty` });
  }
}
