// RPC mode: JSON requests on stdin, responses and session events on stdout, one per line.
import type { Message } from '../contract/content.js';
import type { Session } from '../session/session.js';
import { errorMessage } from '../util/errors.js';
import { reportDiagnostics, writeDiagnostic, type ModeIO } from './io.js';
import { readLines } from './lines.js';
import { decodeRpcLine, headerOf } from './rpc-decode.js';
import { OutputPressure, reportToSession } from './pressure.js';
import type { ConfirmDecision } from '../session/confirm.js';
import { forwardingUi, isExtensionUiEvent } from '../session/extension-ui.js';
import type { RpcRequest, RpcResponse } from './rpc-schema.js';

export const RPC_PROTOCOL_VERSION = 1;

/** Images are reported as a byte count to keep transcript dumps small. */
function publicMessage(message: Message): unknown {
  const strip = (block: { type: string; data?: string; mime_type?: string }) =>
    block.type === 'image'
      ? {
          type: 'image',
          mime_type: block.mime_type,
          bytes: Buffer.byteLength(block.data ?? '', 'base64'),
        }
      : block;
  return {
    ...message,
    content: message.content.map((block) =>
      block.type === 'tool_result' ? { ...block, content: block.content.map(strip) } : strip(block),
    ),
  };
}

const COMMAND_DONE_ACTIONS = {
  display: 'display',
  insert: 'insert',
  panel: 'open_panel',
  noop: 'noop',
  error: 'error',
} as const;

export interface RpcInfo {
  version: string;
  /** --no-yolo: ask the client before each tool runs. */
  confirm?: boolean;
}

/** Pending confirm_request questions by tool id. */
type Waiting = Map<string, (decision: ConfirmDecision) => void>;

type Reply = Omit<RpcResponse, 'type' | 'command' | 'id'>;

/** What a request handler works with; `track` registers work that outlives the reply. */
interface Context {
  session: Session;
  info: RpcInfo;
  waiting: Waiting;
  track: (task: Promise<unknown>) => void;
  /** Writes one line of output (for events only RPC has, such as command_done). */
  send: (value: unknown) => void;
}

/** A reply, and the work it announces: started only once the reply is written. */
type Handled = Reply & { start?: () => Promise<unknown> };

/**
 * Handles one request and returns the reply. Work that emits events (a prompt, a command)
 * comes back as `start`, so that a response always precedes the events it starts.
 */
async function handle(request: RpcRequest, context: Context): Promise<Handled> {
  const { session, info, waiting } = context;
  switch (request.type) {
    case 'hello':
      return {
        success: true,
        data: {
          protocol_version: RPC_PROTOCOL_VERSION,
          version: info.version,
          provider: session.currentModel.provider,
          model: session.currentModel.id,
        },
      };
    case 'ping':
      return { success: true, data: { pong: true } };
    case 'prompt': {
      const images = request.images?.map((image) => ({ type: 'image' as const, ...image }));
      const start = () => session.prompt(request.message, images, request.mode);
      return { success: true, data: { started: true }, start };
    }
    case 'compact':
      return { success: true, data: { started: true }, start: () => session.compact() };
    case 'abort':
      if (request.queue === true) return { success: true, data: { dropped: session.cancel() } };
      session.abort();
      return { success: true };
    case 'get_state':
      return { success: true, data: session.state() };
    case 'get_messages':
      return { success: true, data: { messages: session.messages.map(publicMessage) } };
    case 'get_models':
      return {
        success: true,
        data: {
          models: session.models().map((model) => ({
            id: model.id,
            provider: model.provider,
            context_window: model.contextWindow,
            max_output: model.maxTokens,
            reasoning: model.reasoning,
          })),
        },
      };
    case 'get_sessions':
      return { success: true, data: { sessions: session.sessions() } };
    case 'switch_session':
      session.resume(request.path);
      return {
        success: true,
        data: { session_file: session.sessionFile ?? null, message_count: session.messages.length },
      };
    case 'clear':
      session.clear();
      return { success: true };
    case 'set_model': {
      const model = session.setModel(request.model);
      return { success: true, data: { model: model.id, provider: model.provider } };
    }
    case 'get_commands':
      return {
        success: true,
        data: {
          commands: session.commands().map((command) => ({
            name: command.name,
            description: command.description,
            ...(command.argumentHint ? { argument_hint: command.argumentHint } : {}),
            source: command.source,
            modes: command.modes,
          })),
        },
      };
    case 'command': {
      // Its outcome arrives as events, then command_done (a turn it runs ends with done).
      const start = async () => {
        const result = await session.runCommand(request.text, 'rpc', true);
        if (result.kind === 'prompt') return;
        const name = request.text.slice(1).split(/\s/)[0]!.toLowerCase();
        context.send({
          type: 'command_done',
          ...(request.id !== undefined ? { id: request.id } : {}),
          name,
          action: COMMAND_DONE_ACTIONS[result.kind],
        });
      };
      return { success: true, data: { started: true }, start };
    }
    case 'reload_extensions':
      return { success: true, data: { extensions: await session.reloadExtensions() } };
    case 'panel_key': {
      const sent = session.panelKey(request.panel_id, request.key, request.text);
      return sent.ok ? { success: true } : { success: false, error: sent.error };
    }
    case 'confirm': {
      const answer = waiting.get(request.tool_id);
      if (!answer)
        return {
          success: false,
          error: `no confirmation is pending for tool call "${request.tool_id}"`,
        };
      waiting.delete(request.tool_id);
      answer(request.decision as ConfirmDecision);
      return { success: true };
    }
    case 'panel_close': {
      const closed = session.closePanel(request.panel_id);
      return closed
        ? { success: true }
        : { success: false, error: `no open panel "${request.panel_id}"` };
    }
  }
}

const UNAUTHORIZED =
  'unauthorized: the first line must be {"type":"hello","token":...} with the ZOTCORE_RPC_TOKEN value';

/**
 * Serves requests until stdin ends, lets the work asked for finish, and returns the exit code.
 * `open` creates the session; with ZOTCORE_RPC_TOKEN set it is called only after the hello
 * with that token, so nothing starts (no extension, no session file, no event) before it.
 * `signal` (a signal, a broken stdout) stops serving at once; the caller aborts the work.
 * Contract: a malformed line gets an error response and the server keeps serving.
 */
export async function runRpcMode(
  open: () => Promise<Session>,
  io: ModeIO & { stdin: NodeJS.ReadableStream },
  info: RpcInfo,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // While stdout is backed up, no request is read (so none adds to it) and, once the session
  // exists, its extension host reads no extension output.
  const output = new OutputPressure(io.stdout);
  const send = (value: unknown) => output.write(JSON.stringify(value));
  const waiting: Waiting = new Map();
  const tasks = new Set<Promise<unknown>>();
  const track = (task: Promise<unknown>) => {
    const done = () => tasks.delete(task);
    tasks.add(task);
    task.then(done, done);
  };
  let inputEnded = false;
  const start = async (): Promise<Context> => {
    const session = await open();
    reportToSession(output, session);
    session.subscribe((event) => {
      reportDiagnostics(event, io);
      if (event.type !== 'warning' && !isExtensionUiEvent(event)) send(event);
    });
    session.connectUi(forwardingUi(send));
    // The client answers ask rules always, and every call no rule allows with --no-yolo.
    session.enableConfirmation(
      (request, abort) =>
        new Promise<ConfirmDecision>((resolve) => {
          // After the end of input nobody is left to answer.
          if (inputEnded) return resolve('deny');
          waiting.set(request.tool_id, resolve);
          abort.addEventListener(
            'abort',
            () => (waiting.delete(request.tool_id), resolve('deny')),
            { once: true },
          );
          send({ type: 'confirm_request', ...request });
        }),
      { yolo: !info.confirm },
    );
    if (!signal?.aborted) await session.startExtensions();
    return { session, info, waiting, track, send };
  };
  const token = env.ZOTCORE_RPC_TOKEN;
  let context = token ? undefined : await start();
  let exitCode = 0;
  const refuse = (id: string | number | undefined, error: string, stop: () => void) => {
    send({
      type: 'response',
      ...(id !== undefined ? { id } : {}),
      command: 'hello',
      success: false,
      error,
    });
    exitCode = 1;
    stop();
  };
  const onLine = async (line: string, stop: () => void) => {
    if (line.trim() === '') return;
    const decoded = decodeRpcLine(line);
    if (!context) {
      const id = decoded.ok ? decoded.request.id : decoded.id;
      const ok = decoded.ok && decoded.request.type === 'hello' && decoded.request.token === token;
      if (!ok) return refuse(id, UNAUTHORIZED, stop);
      try {
        context = await start();
      } catch (error) {
        writeDiagnostic(io.stderr, `zot: ${errorMessage(error)}`);
        return refuse(id, errorMessage(error), stop);
      }
    }
    if (!decoded.ok) {
      const { ok: _ok, ...response } = decoded;
      send({ type: 'response', ...response, success: false });
      return;
    }
    const { request } = decoded;
    const base = {
      type: 'response',
      ...(request.id !== undefined ? { id: request.id } : {}),
      command: request.type,
    };
    // Not awaited: a slow request (reload_extensions) must not stop the reader, or a confirm
    // or abort sent meanwhile could never arrive.
    track(
      handle(request, context).then(
        ({ start, ...reply }) => {
          send({ ...base, ...reply });
          if (start) track(start());
        },
        (error: unknown) => send({ ...base, success: false, error: errorMessage(error) }),
      ),
    );
  };
  const onOversize = (bytes: number, stop: () => void) => {
    if (!context) return refuse(undefined, UNAUTHORIZED, stop);
    send({
      type: 'response',
      command: 'unknown',
      success: false,
      error: `line of ${bytes} bytes exceeds the 32 MiB limit`,
    });
  };
  // Refused like an extension's line: JSON text is UTF-8, and a request read with U+FFFD in
  // place of its bytes is not the request that was sent.
  const onInvalidUtf8 = (bytes: number, text: string, stop: () => void) => {
    if (!context) return refuse(undefined, UNAUTHORIZED, stop);
    send({
      type: 'response',
      ...headerOf(text),
      success: false,
      error: `line of ${bytes} bytes is not valid UTF-8; requests are JSON in UTF-8`,
    });
  };
  await readLines(io.stdin, { onLine, onOversize, onInvalidUtf8 }, { gate: output, signal });
  if (!context) return exitCode;
  if (exitCode === 0 && !signal?.aborted) {
    // End of input means the input is complete (design D22): what was asked for still runs.
    inputEnded = true;
    for (const answer of waiting.values()) answer('deny');
    waiting.clear();
    while (tasks.size > 0 || context.session.busy) {
      await Promise.allSettled(tasks);
      await context.session.idle();
    }
  }
  await context.session.close();
  return exitCode;
}
