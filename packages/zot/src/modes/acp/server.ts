// ACP mode (`zot acp`): the Agent Client Protocol over stdio, JSON-RPC 2.0 one message a line.
// stdout carries only ACP messages; diagnostics go to stderr.
import { basename } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  agent,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type AgentContext,
  type AuthMethod,
  type ClientCapabilities,
  type McpServer,
} from '@agentclientprotocol/sdk';
import type { AcpRuntime, EditorFiles, EditorMcpServer } from '../../contract/front-end.js';
import { nodeCrypto } from '../../util/builtins.js';
import { errorMessage } from '../../util/errors.js';
import { writeDiagnostic, type ModeIO } from '../io.js';
import { LinkedSession } from './linked-session.js';
import { replayUpdates } from './replay.js';
import type { OldTexts } from './old-text.js';
import { editorTerminal } from './terminal.js';

export interface AcpInfo {
  version: string;
  /** --no-yolo: ask before every tool call no rule allows. */
  noYolo: boolean;
  /**
   * --client-terminal or config.json's `acp.client_terminal`: bash runs in the editor's
   * terminals when it offers them (only with the sandbox off).
   */
  clientTerminal: boolean;
}

interface Streams extends ModeIO {
  stdin: NodeJS.ReadableStream;
}

/** The editor's MCP servers in zot's terms; SSE ones are refused (not advertised). */
function editorServers(servers: readonly McpServer[]): EditorMcpServer[] {
  return servers.map((server) => {
    if ('type' in server && server.type === 'http') {
      const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
      return { transport: 'http', name: server.name, url: server.url, headers };
    }
    if ('type' in server && server.type === 'sse') {
      throw RequestError.invalidParams(
        { server: server.name },
        `MCP server "${server.name}": zot's MCP bridge speaks stdio and streamable HTTP, not the older SSE transport (which MCP deprecated); configure the server's streamable HTTP endpoint (type "http") instead`,
      );
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    const env = Object.fromEntries(stdio.env.map((v) => [v.name, v.value]));
    return { transport: 'stdio', name: stdio.name, command: stdio.command, args: stdio.args, env };
  });
}

/** The client's file system as zot's file tools see it, when the client offers one. */
function editorFiles(
  client: AgentContext,
  sessionId: string,
  capabilities: ClientCapabilities,
  oldTexts: OldTexts,
): EditorFiles | undefined {
  const { readTextFile, writeTextFile } = capabilities.fs ?? {};
  if (!readTextFile && !writeTextFile) return undefined;
  const readText = async (path: string) =>
    (await client.request('fs/read_text_file', { sessionId, path })).content;
  if (writeTextFile) oldTexts.readDiskOnCall = false;
  return {
    ...(readTextFile ? { readText } : {}),
    ...(writeTextFile
      ? {
          writeText: async (path: string, content: string) => {
            // The text being replaced, for the diff: the editor's buffer when it serves reads.
            if (readTextFile) {
              await readText(path).then(
                (text) => oldTexts.remember(path, text),
                () => undefined, // not open, or no such file: no old text
              );
            } else oldTexts.fromDisk(path);
            await client.request('fs/write_text_file', { sessionId, path, content });
          },
        }
      : {}),
  };
}

/**
 * Why client terminals cannot be used with this session: the editor's terminal runs outside
 * zot's sandbox, so asking for both is refused rather than one silently dropped.
 */
function terminalConflict(
  info: AcpInfo,
  capabilities: ClientCapabilities,
  sandbox: 'off' | 'on' | 'required',
): string | undefined {
  if (!info.clientTerminal || !capabilities.terminal || sandbox === 'off') return undefined;
  return (
    `zot: client terminals are on (--client-terminal or "acp": {"client_terminal": true} in config.json) ` +
    `and so is the bash sandbox (sandbox.mode "${sandbox}"): a command in the editor's terminal would run ` +
    `outside the sandbox. Turn one off: drop --client-terminal / set acp.client_terminal to false, ` +
    `or run \`zot acp --sandbox off\` / set sandbox.mode to "off" in config.json`
  );
}

function authMethods(runtime: AcpRuntime): AuthMethod[] {
  return runtime
    .providers()
    .filter((status) => status.needs_key)
    .map((status) => ({
      id: `${status.provider}-api-key`,
      name: `${status.provider} API key`,
      description: `Set the provider's API key in the environment zot starts with, or run \`zot auth login ${status.provider}\` once in a terminal`,
    }));
}

/**
 * Serves ACP until the client closes the connection; returns the exit code.
 * Contract: a malformed message or unknown method gets a JSON-RPC error and the connection
 * stays open; every session is disposed before it returns.
 */
export async function runAcpMode(
  runtime: AcpRuntime,
  io: Streams,
  info: AcpInfo,
  signal?: AbortSignal,
): Promise<number> {
  const log = (message: string) => writeDiagnostic(io.stderr, message);
  const sessions = new Map<string, LinkedSession>();
  let clientCapabilities: ClientCapabilities = {};
  const linked = (sessionId: string) => {
    const found = sessions.get(sessionId);
    if (!found) throw RequestError.sessionNotFound(sessionId);
    return found;
  };

  const open = async (
    client: AgentContext,
    request: { cwd: string; sessionId?: string; mcpServers: readonly McpServer[] },
  ) => {
    // A new session's id reaches the client with the response: its updates wait until then.
    let session;
    try {
      session = await runtime.open({
        cwd: request.cwd,
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
        mcpServers: editorServers(request.mcpServers),
      });
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw RequestError.invalidParams(undefined, errorMessage(error));
    }
    const conflict = terminalConflict(info, clientCapabilities, session.state().sandbox.mode);
    if (conflict) {
      await session.dispose();
      throw RequestError.invalidRequest({ conflict: 'client_terminal+sandbox' }, conflict);
    }
    const file = session.sessionFile;
    const id = file
      ? basename(file, '.jsonl')
      : `unrecorded-${nodeCrypto().randomBytes(6).toString('hex')}`;
    const link = new LinkedSession(id, session, client, {
      noYolo: info.noYolo,
      log,
      forms: Boolean(clientCapabilities.elicitation?.form),
    });
    if (request.sessionId === undefined) link.hold();
    link.attach();
    const files = editorFiles(client, id, clientCapabilities, link.oldTexts);
    if (files) session.useEditorFiles(files);
    if (info.clientTerminal && clientCapabilities.terminal) {
      const hooks = { shown: (call: string, term: string) => link.terminalShown(call, term), log };
      session.useEditorTerminal(editorTerminal(client, id, hooks));
    } else if (info.clientTerminal) {
      link.later(
        "zot: client terminals are on, but this editor does not offer terminals: bash runs in zot's own process, sandbox and environment scrubbing",
      );
    }
    await session.startExtensions();
    sessions.set(id, link);
    if (request.mcpServers.length > 0 && !session.state().extensions.loaded.includes('mcp')) {
      const names = request.mcpServers.map((server) => server.name).join(', ');
      const message = `zot: the editor's MCP servers (${names}) need zot's MCP bridge extension, which is not running: install it with \`zot ext install <zot checkout>/examples/extensions/mcp\` (docs/mcp.md)`;
      log(message);
      link.later(message);
    }
    return link;
  };

  const app = agent({ name: 'zot' })
    .onRequest('initialize', ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, close: {}, resume: {} },
        },
        authMethods: authMethods(runtime),
        agentInfo: { name: 'zot', title: 'zot', version: info.version },
      };
    })
    .onRequest('authenticate', ({ params }) => {
      const ready = runtime.providers().find((s) => `${s.provider}-api-key` === params.methodId);
      if (!ready) {
        throw RequestError.invalidParams({ methodId: params.methodId }, 'unknown auth method');
      }
      if (!ready.ready) {
        throw RequestError.authRequired(
          { methodId: params.methodId },
          `no ${ready.provider} API key: set it in zot's environment or run \`zot auth login ${ready.provider}\``,
        );
      }
      return {};
    })
    .onRequest('session/new', async ({ params, client }) => {
      const link = await open(client, params);
      const problem = link.session.keyProblem();
      if (problem !== undefined) {
        sessions.delete(link.id);
        await link.close();
        throw RequestError.authRequired(undefined, problem);
      }
      setImmediate(() => link.announce());
      return { sessionId: link.id, modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest('session/load', async ({ params, client }) => {
      if (sessions.has(params.sessionId)) {
        throw RequestError.invalidRequest(undefined, `session ${params.sessionId} is open already`);
      }
      const link = await open(client, params);
      for (const update of replayUpdates(link.session.messages, link.session.cwd)) {
        link.send(update);
      }
      setImmediate(() => link.announce());
      return { modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest('session/resume', async ({ params, client }) => {
      // As session/load, without the replay: the client still shows the conversation.
      if (sessions.has(params.sessionId)) {
        throw RequestError.invalidRequest(undefined, `session ${params.sessionId} is open already`);
      }
      const link = await open(client, { ...params, mcpServers: params.mcpServers ?? [] });
      setImmediate(() => link.announce());
      return { modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest('session/list', ({ params }) => {
      const cwd = params.cwd ?? process.cwd();
      return {
        sessions: runtime
          .sessions(cwd)
          .filter((summary) => summary.error === undefined)
          .map((summary) => ({
            sessionId: basename(summary.path, '.jsonl'),
            cwd,
            ...(summary.name || summary.first_prompt
              ? { title: summary.name ?? summary.first_prompt }
              : {}),
            updatedAt: summary.modified,
          })),
      };
    })
    .onRequest('session/close', async ({ params }) => {
      const link = linked(params.sessionId);
      sessions.delete(params.sessionId);
      await link.close();
      return {};
    })
    .onRequest('session/set_mode', ({ params }) => {
      linked(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest('session/set_config_option', ({ params }) => ({
      configOptions: linked(params.sessionId).setConfig(params.configId, params.value),
    }))
    .onRequest('session/prompt', ({ params, signal: cancelled }) => {
      const link = linked(params.sessionId);
      cancelled.addEventListener('abort', () => link.cancel(), { once: true });
      return link.prompt(params.prompt);
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const output = Writable.toWeb(io.stdout as Writable) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>;
  const connection = app.connect(ndJsonStream(output, input));
  const stop = () => connection.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await connection.closed;
  } catch (error) {
    log(`zot: ACP connection closed: ${errorMessage(error)}`);
  } finally {
    signal?.removeEventListener('abort', stop);
    await Promise.allSettled([...sessions.values()].map((link) => link.close()));
    sessions.clear();
  }
  return 0;
}
