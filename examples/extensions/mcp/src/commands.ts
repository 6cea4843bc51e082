// /mcp: the servers and their state; /mcp restart <server>; /mcp trust and /mcp untrust for the
// project's .mcp.json (a review first, then an approval pinned to the hash that was reviewed).
import { display, error, type CommandResult } from '@zot/sdk';
import { changedMessage, type Bridge } from './bridge.js';
import { AS_WRITTEN, readConfigFile, type ServerConfig } from './config.js';
import type { McpServer } from './server.js';
import type { PinnedFile } from './pins.js';
import { clip } from './tools.js';
import { redactUrl, redactUrlsIn } from './redact.js';
import { approve, withdraw } from './trust.js';
import { describeScope, effectivePermissions } from './sandbox.js';

const USAGE = 'usage: /mcp [restart <server> | trust [<sha256>] | untrust]';

function where(server: McpServer): string {
  const c = server.config;
  if (c.kind === 'http') return redactUrl(c.url);
  return server.pid === undefined ? 'stdio' : `stdio, pid ${server.pid}`;
}

function status(bridge: Bridge): string {
  const lines: string[] = [];
  if (bridge.servers.size === 0) {
    lines.push(`No MCP servers configured (${bridge.user?.path}, ${bridge.project?.path}).`);
  }
  for (const server of bridge.servers.values()) {
    const tools = [...bridge.routes.values()].filter((r) => r.server === server).length;
    const mode = server.deferred ? ', deferred behind mcp_search' : '';
    let line = `${server.name} (${server.config.source}, ${where(server)}): ${server.state}`;
    if (server.state === 'ready') line += `, ${tools} tool(s)${mode}`;
    if (server.state === 'starting') {
      line += ` for ${server.startingForMs} ms (start-up limit ${server.startupLimit.ms} ms)`;
      if (server.cached) line += `, ${tools} tool(s) registered from its last listing${mode}`;
    }
    if (server.state === 'refused')
      line += ': the project .mcp.json is not approved; review it with /mcp trust';
    if ((server.state === 'failed' || server.state === 'exited') && server.error) {
      line += `: ${clip(redactUrlsIn(server.error), 300)}`;
    }
    lines.push(line);
    if (server.config.kind === 'stdio')
      lines.push(`    ${clip(describeScope(effectivePermissions(server.config)), 300)}`);
    const tail =
      server.state === 'failed' || server.state === 'exited' ? server.stderr.last(3) : '';
    if (tail) lines.push(...tail.split('\n').map((l) => `    ${clip(l, 200)}`));
  }
  if (bridge.problems.length > 0) {
    lines.push(`${bridge.problems.length} problem(s):`);
    lines.push(...bridge.problems.slice(0, 20).map((p) => `  ${clip(p, 300)}`));
    if (bridge.problems.length > 20) lines.push(`  … and ${bridge.problems.length - 20} more`);
  }
  if (bridge.leftOut.length > 0) {
    lines.push(`${bridge.leftOut.length} tool(s) left out:`);
    lines.push(...bridge.leftOut.slice(0, 20).map((p) => `  ${clip(p, 300)}`));
    if (bridge.leftOut.length > 20) lines.push(`  … and ${bridge.leftOut.length - 20} more`);
  }
  return lines.join('\n');
}

const pairs = (map: Readonly<Record<string, string>>) =>
  Object.entries(map).map(([key, value]) => `${key}=${JSON.stringify(value)}`);

function describe(config: ServerConfig): string {
  if (config.kind === 'http') {
    const headers = pairs(config.headers);
    return `  ${config.name}: http ${config.url}${headers.length ? `\n    headers: ${headers.join(' ')}` : ''}`;
  }
  const env = pairs(config.env);
  const scope = describeScope(effectivePermissions(config));
  return `  ${config.name}: runs ${JSON.stringify([config.command, ...config.args])}${env.length ? `\n    env: ${env.join(' ')}` : ''}\n    ${scope}`;
}

function pinned(file: PinnedFile): string {
  if (file.state === 'missing') return `  ${file.path}: not there now (creating it asks again)`;
  const real = file.real ? ` -> ${file.real}` : '';
  return `  ${file.path}${real}: sha256 ${file.sha256!.slice(0, 16)}…, ${file.bytes} bytes`;
}

/** Without a hash: the review. With the reviewed hash (or a prefix of 12+): the approval. */
function trust(bridge: Bridge, hash: string): CommandResult {
  const project = bridge.project;
  if (!project) return error('/mcp trust: no project loaded');
  // Read again: what is approved must be what is on disk now, not what was read at start.
  // `${NAME}` stays as written: the review shows what the file asks for, and no secrets.
  const now = readConfigFile(project.path, 'project', AS_WRITTEN);
  if (!now.found || now.sha256 === undefined)
    return error(`/mcp trust: there is no ${project.path}`);
  if (now.sha256 !== project.sha256) {
    return error(
      '/mcp trust: the file changed since zot started; run /reload-ext, then review it again',
    );
  }
  const approval = bridge.approvalNow();
  if (hash === '') {
    const files = approval?.pins.files ?? [];
    return display(
      [
        `${now.path} (sha256 ${now.sha256}) would start:`,
        ...now.servers.map(describe),
        ...now.problems.map((p) => `  problem: ${p}`),
        ...(files.length > 0
          ? ['They run these project files, pinned with the approval:', ...files.map(pinned)]
          : []),
        ...(approval?.pins.problems ?? []).map((p) => `  problem: ${p}`),
        approval?.sha256
          ? `These programs run in the sandboxes above. To approve exactly this: /mcp trust ${approval.sha256.slice(0, 16)}`
          : 'This cannot be approved until the problems above are fixed.',
      ].join('\n'),
    );
  }
  const sha256 = approval?.sha256;
  if (sha256 === undefined || !/^[0-9a-f]{12,64}$/.test(hash) || !sha256.startsWith(hash)) {
    return error(
      `/mcp trust: ${now.path} or a program it runs has changed or the hash is wrong; review it again with /mcp trust`,
    );
  }
  approve(bridge.trustStore, now.path, sha256);
  const started = bridge.admitProject();
  void Promise.all(started.map((s) => s.done));
  return display(
    `Approved ${now.path} (sha256 ${sha256.slice(0, 16)}…); starting ${started.length} server(s).`,
  );
}

export function mcpCommand(bridge: Bridge) {
  return async (args: string): Promise<CommandResult> => {
    const [verb = '', target = '', ...rest] = args.split(/\s+/).filter(Boolean);
    if (rest.length > 0) return error(USAGE);
    if (verb === '') {
      // The state once the servers still starting are ready or failed (within the command's time).
      const waits = [...bridge.servers.values()].map((s) => s.started(bridge.commandWaitMs));
      await Promise.all(waits);
      return display(status(bridge));
    }
    if (verb === 'restart') {
      const server = bridge.servers.get(target);
      if (!server)
        return error(`/mcp restart: no server named ${JSON.stringify(clip(target, 80))}`);
      if (server.state === 'refused')
        return error(`/mcp restart: ${server.name} is not approved; see /mcp trust`);
      if (!bridge.mayRestart(server)) return error(changedMessage(server));
      const ready = await server.restart(false);
      bridge.register(server);
      return ready
        ? display(`${server.name}: restarted, ${server.tools.length} tool(s)`)
        : error(bridge.downMessage(server, 'could not be restarted'));
    }
    if (verb === 'trust') return trust(bridge, target.toLowerCase());
    if (verb === 'untrust' && target === '') {
      const path = bridge.project?.path ?? '';
      return withdraw(bridge.trustStore, path)
        ? display(
            `Approval of ${path} withdrawn; its servers do not start from the next session on.`,
          )
        : display(`${path} was not approved.`);
    }
    return error(USAGE);
  };
}
