// The bash tool in the real bubblewrap sandbox, attacked as a command would: writes outside the
// project, secrets in the home and in ZOT_HOME, unmounting the covers, the host's loopback,
// the proxy's host list, a timeout. As root too: "unreadable" comes from the mount namespace.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ToolOutput } from '../src/agent/tool.js';
import { SandboxController } from '../src/security/sandbox/controller.js';
import type { SandboxSettingsPart } from '../src/security/sandbox/settings.js';
import { userSandbox } from '../src/security/sandbox/settings.js';
import { createBashTool } from '../src/tools/bash.js';
import { makeSandboxBox, type SandboxBox } from './support/sandbox.js';

let box: SandboxBox;
let hostServer: Server;
let otherServer: Server;
let hostPort = 0;
let otherPort = 0;

function listen(text: string): Promise<[Server, number]> {
  const server = createServer((req, res) => res.end(`${text}:${req.url}\n`));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve([server, (server.address() as { port: number }).port]),
    ),
  );
}

before(async () => {
  box = makeSandboxBox();
  [hostServer, hostPort] = await listen('HOST-SERVER');
  [otherServer, otherPort] = await listen('OTHER-SERVER');
});
after(() => {
  hostServer.close();
  otherServer.close();
  box.cleanup();
});

function controller(part: SandboxSettingsPart = {}): SandboxController {
  return new SandboxController({
    settings: userSandbox({ mode: 'required', ...part }),
    project: box.project,
    home: box.home,
    zotHome: box.zotHome,
    networkSetting: 'sandbox.network (test)',
  });
}

async function run(
  command: string,
  sandbox: SandboxController,
  options: { timeout?: number } = {},
): Promise<{ text: string; output: ToolOutput }> {
  const probe = await sandbox.check();
  assert.ok(
    probe.ok,
    `the sandbox cannot start on this machine: ${probe.problem?.message}\n${probe.problem?.fix}`,
  );
  const tool = createBashTool({ sandbox, outputDir: join(box.base, 'bash-out') });
  const args = options.timeout === undefined ? { command } : { command, timeout: options.timeout };
  const output = await tool.execute(args, {
    cwd: box.project,
    toolCallId: 'call',
    signal: new AbortController().signal,
    onProgress: () => undefined,
  });
  const block = output.content[0];
  return { text: block?.type === 'text' ? block.text : '', output };
}

test('the project is writable; everything else is read-only, whoever runs it (root too)', async () => {
  const marker = join(box.outside, 'written-from-sandbox');
  const { text } = await run(
    `id -u; echo in > inside.txt && cat inside.txt; echo out > ${marker}; echo x >> ${join(box.outside, 'existing.txt')}; ` +
      `echo h > ${join(box.home, '.bashrc')}; touch /etc/zot-sandbox-test`,
    controller(),
  );
  assert.match(text, /^in$/m);
  assert.equal(readFileSync(join(box.project, 'inside.txt'), 'utf8'), 'in\n');
  assert.ok(!existsSync(marker), 'nothing was written outside the project');
  assert.equal(readFileSync(join(box.outside, 'existing.txt'), 'utf8'), 'untouched\n');
  assert.ok(!existsSync(join(box.home, '.bashrc')));
  assert.ok(!existsSync('/etc/zot-sandbox-test'));
  assert.match(text, /Read-only file system/);
});

test('~/.ssh, ~/.netrc and ZOT_HOME are hidden; ZOT_HOME/skills stays readable', async () => {
  const { text } = await run(
    `ls -A ${join(box.home, '.ssh')} | wc -l; cat ${join(box.home, '.ssh/id_ed25519')}; cat ${join(box.home, '.netrc')}; ` +
      `cat ${join(box.zotHome, 'auth.json')}; cat ${join(box.zotHome, 'skills/demo/SKILL.md')}; ` +
      `grep -r SECRET ${box.home} 2>/dev/null; echo end`,
    controller(),
  );
  assert.doesNotMatch(text, /SECRET/);
  assert.match(text, /^0$/m, '~/.ssh is an empty directory inside');
  assert.match(text, /auth\.json: No such file or directory/);
  assert.match(text, /name: demo/);
  assert.match(text, /^end$/m);
});

test('the covers cannot be taken off: no capabilities, so no umount or mount', async () => {
  const { text } = await run(
    `umount ${join(box.home, '.ssh')}; mount -t tmpfs none ${box.outside}; ` +
      `cat ${join(box.home, '.ssh/id_ed25519')}; grep CapEff /proc/self/status`,
    controller(),
  );
  assert.doesNotMatch(text, /SECRET/);
  assert.match(text, /CapEff:\s+0+$/m);
});

test('a sandboxed command sees its own processes only, not zot', async () => {
  const { text } = await run(
    `test -e /proc/${process.pid} && echo SEES-ZOT; ls /proc | grep -c '^[0-9]'`,
    controller(),
  );
  assert.doesNotMatch(text, /SEES-ZOT/);
  assert.ok(Number(/^(\d+)$/m.exec(text)?.[1]) < 10, text);
});

test('network off: not even a server on the host 127.0.0.1 can be reached', async () => {
  const script = join(box.project, 'get.js');
  writeFileSync(
    script,
    `require('http').get('http://127.0.0.1:${hostPort}/x', (r) => { r.pipe(process.stdout); })` +
      `.on('error', (e) => { console.log('NET-ERROR ' + e.code); process.exitCode = 3; });\n`,
  );
  const { text, output } = await run(`${JSON.stringify(process.execPath)} get.js`, controller());
  assert.doesNotMatch(text, /HOST-SERVER/);
  assert.match(text, /NET-ERROR (ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)/);
  assert.match(
    text,
    /ran in the sandbox: .*network: off/,
    'a failed command says what the sandbox allowed',
  );
  assert.equal(output.isError, true);
});

test('a host list: the allowed host:port passes through the proxy (plain HTTP and CONNECT), another is refused on stderr', async () => {
  // Python's urllib follows HTTP_PROXY; http.client's set_tunnel speaks CONNECT through it.
  writeFileSync(
    join(box.project, 'fetch.py'),
    [
      'import os, sys, urllib.request, urllib.error, http.client',
      'for port in sys.argv[1:]:',
      '    try:',
      "        print(urllib.request.urlopen(f'http://127.0.0.1:{port}/plain').read().decode().strip())",
      '    except urllib.error.HTTPError as e:',
      "        print('HTTP', e.code)",
      "proxy = urllib.parse.urlsplit(os.environ['HTTP_PROXY'])",
      'for port in sys.argv[1:]:',
      '    c = http.client.HTTPConnection(proxy.hostname, proxy.port)',
      "    c.set_tunnel('127.0.0.1', int(port))",
      '    try:',
      "        c.request('GET', '/tunnel'); print(c.getresponse().read().decode().strip())",
      '    except OSError as e:',
      "        print('TUNNEL-REFUSED', e)",
    ].join('\n'),
  );
  const { text } = await run(
    `python3 fetch.py ${hostPort} ${otherPort}`,
    controller({ network: [`127.0.0.1:${hostPort}`] }),
  );
  assert.match(text, /^HOST-SERVER:\/plain$/m);
  assert.match(text, /^HOST-SERVER:\/tunnel$/m);
  assert.doesNotMatch(text, /OTHER-SERVER/);
  assert.match(text, /^HTTP 403$/m);
  assert.match(text, /TUNNEL-REFUSED/);
  // The forwarder writes the refusal where the command's errors go, naming host and setting.
  assert.match(
    text,
    new RegExp(
      `zot sandbox: blocked network access to 127\\.0\\.0\\.1:${otherPort}: not in sandbox\\.network`,
    ),
  );
  // And the tool result repeats what the proxy refused, with the fix.
  assert.match(
    text,
    new RegExp(
      `\\[zot sandbox: network access to 127\\.0\\.0\\.1:${otherPort} is blocked: it is not in sandbox\\.network \\(test\\)\\. Add`,
    ),
  );
});

test('a timeout kills everything the command started inside the sandbox', async () => {
  const tag = `zot-sandbox-sleeper-${process.pid}`;
  const { text } = await run(`sh -c 'exec -a ${tag} sleep 300' & sleep 300`, controller(), {
    timeout: 1,
  });
  assert.match(text, /timed out after 1s/);
  const alive = readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(tag);
    } catch {
      return false;
    }
  });
  assert.deepEqual(alive, [], 'no sandboxed process outlived the timeout');
});

test('/tmp is private to each command', async () => {
  const first = await run('echo kept > /tmp/zot-private-probe && ls /tmp', controller());
  assert.match(first.text, /zot-private-probe/);
  assert.ok(!existsSync('/tmp/zot-private-probe'), 'not on the host');
  const second = await run('cat /tmp/zot-private-probe || echo gone', controller());
  assert.match(second.text, /^gone$/m);
});

test('deny_read of the whole home: the project inside it still works, everything else there is gone', async () => {
  writeFileSync(join(box.home, 'diary.txt'), 'SECRET-DIARY\n');
  const { text } = await run(
    `cat ${join(box.home, 'diary.txt')}; ls ${box.home}; echo ok > in-project.txt && cat in-project.txt`,
    controller({ denyRead: [box.home] }),
  );
  assert.doesNotMatch(text, /SECRET/);
  assert.match(text, /^ok$/m);
  assert.match(text, /diary\.txt: No such file or directory/);
});

test('a hidden path that is a symlink hides its target; a link from the project to it leads nowhere', async () => {
  const real = join(box.outside, 'aws-credentials');
  mkdirSync(real, { recursive: true });
  writeFileSync(join(real, 'credentials'), 'SECRET-AWS\n');
  symlinkSync(real, join(box.home, '.aws'));
  symlinkSync(join(box.home, '.ssh'), join(box.project, 'keys'));
  try {
    const { text } = await run(
      `cat ${join(box.home, '.aws/credentials')}; cat ${join(real, 'credentials')}; cat keys/id_ed25519; echo end`,
      controller(),
    );
    assert.doesNotMatch(text, /SECRET/);
    assert.match(text, /^end$/m);
  } finally {
    rmSync(join(box.home, '.aws'));
    rmSync(join(box.project, 'keys'));
  }
});
