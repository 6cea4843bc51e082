// The forwarder that runs inside a sandbox whose network is a host list: the sandbox has no
// network, so programs reach zot's proxy through a TCP port on the sandbox's own 127.0.0.1,
// which this script relays to the proxy's Unix socket (bound read-only into the sandbox). It
// then runs the command with HTTP_PROXY/HTTPS_PROXY set and exits with its status. A refusal
// from the proxy is printed on stderr, where the command's own errors go.
import { DENIED_HEADER } from './hosts.js';
import type { NetworkSetting } from './settings.js';

/**
 * The script for `node -e`; argv: the socket path, the loopback names that stay direct (added
 * to NO_PROXY: a server the command starts inside is reached there), then the command. fd 3,
 * when open, gets one byte once the command is about to start (the launcher's sign that the
 * sandbox came up).
 */
export const FORWARDER_SCRIPT = `
'use strict';
const net = require('net');
const fs = require('fs');
const { spawn } = require('child_process');
const [socketPath, local, ...command] = process.argv.slice(1);
const deniedHeader = /\\r\\n${DENIED_HEADER}: *([^\\r\\n]{1,300})/i;
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  upstream.once('data', (chunk) => {
    const head = chunk.toString('latin1', 0, Math.min(chunk.length, 4096));
    const denied = head.startsWith('HTTP/1.1 403') ? deniedHeader.exec(head) : null;
    if (denied) {
      process.stderr.write('zot sandbox: blocked network access to ' + denied[1].replace(/[^\\x20-\\x7e]/g, '?') +
        ': not in sandbox.network\\n');
    }
    client.write(chunk);
    upstream.pipe(client);
  });
  client.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => {
  const proxy = 'http://127.0.0.1:' + server.address().port;
  const env = Object.assign({}, process.env, {
    HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy,
  });
  if (local) env.NO_PROXY = env.no_proxy = env.NO_PROXY ? env.NO_PROXY + ',' + local : local;
  delete env.ALL_PROXY; delete env.all_proxy;
  try { fs.writeSync(3, '.'); fs.closeSync(3); } catch {}
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
  child.on('error', (error) => { process.stderr.write(command[0] + ': ' + error.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    process.exit(code === null ? 1 : code);
  });
});
server.on('error', (error) => { process.stderr.write('zot sandbox: the network forwarder failed: ' + error.message + '\\n'); process.exit(1); });
`;

const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * The loopback names to keep off the proxy: all of them, except those the host list names (the
 * user allowed a service on the host's own loopback, which only the proxy can reach).
 */
export function directLoopback(allow: readonly string[]): string {
  const named = (name: string) =>
    allow.some(
      (entry) => entry === name || entry.startsWith(`${name}:`) || entry.startsWith(`[${name}]`),
    );
  return LOOPBACK.filter((name) => !named(name)).join(',');
}

/** The proxy's socket in its directory (proxy.ts), which bwrap binds at `proxyDirInside`. */
const SOCKET_NAME = 'proxy.sock';

/**
 * `argv` behind the forwarder (bwrap with a host list: the sandbox has no network but the
 * proxy's socket): `node` relays the proxy to the sandbox's loopback and then runs it.
 */
export function forwardedArgv(
  node: string,
  proxyDirInside: string,
  network: NetworkSetting,
  argv: readonly string[],
): string[] {
  return [
    node,
    '-e',
    FORWARDER_SCRIPT,
    `${proxyDirInside}/${SOCKET_NAME}`,
    directLoopback(Array.isArray(network) ? network : []),
    ...argv,
  ];
}

/** The variables that send a program's HTTP(S) through the proxy on the host's `port`. */
export function proxyVariables(port: number): Record<string, string> {
  const proxy = `http://127.0.0.1:${port}`;
  return { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy };
}
