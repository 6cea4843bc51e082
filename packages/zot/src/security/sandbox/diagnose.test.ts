// bwrap's messages for each known cause (as bubblewrap 0.8 and 0.11 print them), with the
// machine's settings, give that cause and its fix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apparmorProfile, describeProblem, diagnoseBwrapFailure } from './diagnose.js';

const NO_PERMISSION_08 =
  "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.";
const NO_PERMISSION_011 =
  "bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.";

test('EPERM with kernel.unprivileged_userns_clone=0: the Debian switch', () => {
  for (const message of [NO_PERMISSION_08, NO_PERMISSION_011]) {
    const problem = diagnoseBwrapFailure(message, {
      unprivilegedUsernsClone: 0,
      maxUserNamespaces: 1000,
    });
    assert.equal(problem.cause, 'userns-disabled');
    assert.match(problem.fix, /sysctl -w kernel\.unprivileged_userns_clone=1/);
  }
});

test("user.max_user_namespaces=0, by the sysctl or by bwrap's ENOSPC message", () => {
  const bySysctl = diagnoseBwrapFailure(NO_PERMISSION_011, { maxUserNamespaces: 0 });
  assert.equal(bySysctl.cause, 'userns-limit');
  const byMessage = diagnoseBwrapFailure(
    'bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)',
    {},
  );
  assert.equal(byMessage.cause, 'userns-limit');
  assert.match(byMessage.fix, /user\.max_user_namespaces=15000/);
});

test("Ubuntu's AppArmor restriction: the profile to add, and the sysctl", () => {
  for (const message of [
    'bwrap: setting up uid map: Permission denied',
    'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted',
    'bwrap: Creating new namespace failed: Permission denied',
  ]) {
    const problem = diagnoseBwrapFailure(message, {
      apparmorRestrict: 1,
      bwrapPath: '/usr/bin/bwrap',
    });
    assert.equal(problem.cause, 'apparmor', message);
    assert.ok(problem.fix.includes('/etc/apparmor.d/bwrap'));
    assert.ok(problem.detail!.includes('profile bwrap /usr/bin/bwrap flags=(unconfined)'));
    assert.ok(problem.detail!.includes('userns,'));
    assert.ok(!problem.fix.includes('\n'), 'the fix is one line; the profile is the detail');
    assert.match(problem.fix, /apparmor_parser -r \/etc\/apparmor\.d\/bwrap/);
    assert.match(problem.fix, /kernel\.apparmor_restrict_unprivileged_userns=0/);
  }
  assert.ok(apparmorProfile('/opt/bin/bwrap').includes('profile bwrap /opt/bin/bwrap'));
});

test('a container: EPERM from seccomp as a user, or as root without CAP_SYS_ADMIN', () => {
  const user = diagnoseBwrapFailure(NO_PERMISSION_08, {
    maxUserNamespaces: 1000,
    container: 'Docker',
  });
  assert.equal(user.cause, 'container');
  assert.match(user.message, /Docker/);
  assert.match(user.fix, /seccomp=unconfined/);
  const root = diagnoseBwrapFailure(
    'bwrap: Creating new namespace failed: Operation not permitted',
    { root: true },
  );
  assert.equal(root.cause, 'container');
  assert.match(root.fix, /--sandbox off/);
});

test('mount failures name the mount and point at the container fix', () => {
  const problem = diagnoseBwrapFailure(
    "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
    {
      container: 'Docker',
    },
  );
  assert.equal(problem.cause, 'mount');
  assert.match(problem.message, /Can't mount proc/);
});

test("an unknown failure keeps bwrap's own words", () => {
  const problem = diagnoseBwrapFailure('bwrap: something new and strange\nsecond line', {});
  assert.equal(problem.cause, 'unknown');
  assert.match(problem.message, /something new and strange/);
  assert.equal(problem.stderr, 'bwrap: something new and strange\nsecond line');
  assert.match(describeProblem(problem), /Fix: Run `zot doctor sandbox`/);
});
