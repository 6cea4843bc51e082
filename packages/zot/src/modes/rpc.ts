// RPC mode: JSON requests on stdin, responses and session events on stdout, one per line.
import type { ImageBlock, Message } from '../contract/content.js';
import type { RpcSession } from '../contract/front-end.js';
import { shownMessage } from '../contract/shown-message.js';
import { errorMessage } from '../util/errors.js';
import { reportDiagnostics, writeDiagnostic, type ModeIO } from './io.js';
import { readLines } from './lines.js';
import { decodeRpcLine, headerOf } from './rpc-decode.js';
import { OutputPressure, reportToSession } from './pressure.js';
import type { ConfirmDecision } from '../contract/confirm.js';
import { errorKindOf, type ErrorKind } from '../contract/errors.js';
import { forwardingUi, isExtensionUiEvent } from '../contract/extension-ui.js';
import {
  answerProblem,
  type ExtensionAnswer,
  type ExtensionQuestion,
} from '../contract/extension-questions.js';
import type {
  PublicMessage,
  RpcFailure,
  RpcRequest,
  RpcRequestType,
  RpcResponseData,
  RpcSuccess,
} from './rpc-schema.js';

export const RPC_PROTOCOL_VERSION = 1;

/** Images are reported as a byte count to keep transcript dumps small. */
function publicMessage(message: Message): PublicMessage {
  const sized = <B extends { type: string }>(block: B | ImageBlock) =>
    block.type === 'image'
      ? {
          type: 'image' as const,
          mime_type: (block as ImageBlock).mime_type,
          bytes: Buffer.byteLength((block as ImageBlock).data, 'base64'),
        }
      : (block as B);
  switch (message.role) {
    case 'assistant':
      return message;
    case 'user':
      return { ...message, content: message.content.map(sized) };
    case 'tool':
      return {
        ...message,
        content: message.content.map((result) => ({
          ...result,
          content: result.content.map(sized),
        })),
      };
  }
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
/** Extensions' questions sent as ui_request events, by their id, until answered or withdrawn. */
type Questions = Map<
  string,
  { question: ExtensionQuestion; answer: (answer: ExtensionAnswer) => void }
>;

/** What a request handler works with; `track` registers work that outlives the reply. */
interface Context {
  session: RpcSession;
  info: RpcInfo;
  waiting: Waiting;
  questions: Questions;
  track: (task: Promise<unknown>) => void;
  /** Writes one line of output (for events only RPC has, such as command_done). */
  send: (value: unknown) => void;
}

/**
 * A handler's answer: the data of its success and the work it announces (started only once
 * the reply is written, so that a response always precedes the events of its work), or a
 * failure with its kind.
 */
type Outcome<K extends RpcRequestType> =
  | { data: RpcResponseData[K]; start?: () => Promise<unknown> }
  | { error: string; kind: ErrorKind };
type Handler<K extends RpcRequestType> = (
  request: Extract<RpcRequest, { type: K }>,
  context: Context,
) => Outcome<K> | Promise<Outcome<K>>;

const done = { data: undefined };
const started = { started: true } as const;

/** One handler per request type; the compiler holds each to its response's schema. */
const HANDLERS: { [K in RpcRequestType]: Handler<K> } = {
  hello: (_request, { session, info }) => ({
    data: {
      protocol_version: RPC_PROTOCOL_VERSION,
      version: info.version,
      provider: session.currentModel.provider,
      model: session.currentModel.id,
    },
  }),
  ping: () => ({ data: { pong: true } }),
  prompt: (request, { session }) => {
    const images = request.images?.map((image) => ({ type: 'image' as const, ...image }));
    const start = () => session.prompt(request.message, images, request.mode, request.id);
    return { data: started, start };
  },
  compact: (request, { session }) => ({ data: started, start: () => session.compact(request.id) }),
  abort: (request, { session }) => {
    if (request.queue === true) return { data: { dropped: session.cancel() } };
    session.abort();
    return done;
  },
  get_state: (_request, { session }) => ({ data: session.state() }),
  get_messages: (_request, { session }) => ({
    data: { messages: session.messages.map((m) => publicMessage(shownMessage(m))) },
  }),
  get_models: (_request, { session }) => ({
    data: {
      models: session.models().map((model) => ({
        id: model.id,
        provider: model.provider,
        context_window: model.contextWindow,
        max_output: model.maxTokens,
        reasoning: model.reasoning,
      })),
    },
  }),
  get_sessions: (_request, { session }) => ({ data: { sessions: session.sessions() } }),
  switch_session: (request, { session }) => {
    session.resume(request.path);
    return {
      data: { session_file: session.sessionFile ?? null, message_count: session.messages.length },
    };
  },
  list_checkpoints: async (_request, { session }) => {
    const turns = await session.listCheckpoints();
    return { data: { enabled: turns !== undefined, turns: turns ?? [] } };
  },
  rewind: async (request, { session }) => {
    const conversation = request.conversation === true;
    const code = request.code ?? !conversation;
    // The conversation point is checked first: a request that cannot do both does neither.
    const point = conversation ? session.conversationPoint(request.turn) : undefined;
    if (point && !point.ok) return { error: point.message, kind: point.kind };
    let files: RpcResponseData['rewind'] = {};
    if (code) {
      const outcome = await session.rewindCode(request.turn, request.force === true);
      if (!outcome.ok) {
        return {
          error: outcome.conflicts
            ? `not rewound: ${outcome.conflicts.map((path) => JSON.stringify(path)).join(', ')} changed outside zot since its last checkpoint; nothing was restored (send force: true to overwrite)`
            : outcome.message,
          kind: outcome.reason === 'no_turn' ? 'not_found' : 'failed',
        };
      }
      files = {
        restored: outcome.restored,
        removed: outcome.removed,
        kept: outcome.kept,
        undo_turn: outcome.undoTurn,
      };
    }
    if (!conversation) return { data: files };
    const moved = session.rewindConversation(request.turn);
    if (!moved.ok) return { error: moved.message, kind: 'failed' };
    return { data: { ...files, message_count: moved.messages } };
  },
  list_branches: (_request, { session }) => ({ data: session.branches.list() }),
  switch_branch: (request, { session }) => {
    const moved = session.branches.switchTo(request.branch);
    return {
      data: {
        branch: moved.index,
        message_count: moved.messages,
        ...(moved.left !== undefined ? { left: moved.left } : {}),
      },
    };
  },
  fork: (request, { session }) => {
    const forked = session.branches.fork(request.messages);
    return { data: { session_file: forked.path, message_count: session.messages.length } };
  },
  clone: (_request, { session }) => {
    const cloned = session.branches.clone();
    return { data: { session_file: cloned.path, message_count: session.messages.length } };
  },
  merge_branch: (request, { session }) => {
    const merged = session.branches.merge(
      request.branch,
      request.messages !== undefined ? { messages: request.messages } : {},
    );
    return {
      data: {
        branch: merged.index,
        text: merged.text,
        summary_by: merged.summary_by,
        message_count: session.messages.length,
      },
    };
  },
  clear: (_request, { session }) => (session.clear(), done),
  set_model: (request, { session }) => {
    const model = session.setModel(request.model);
    return { data: { model: model.id, provider: model.provider } };
  },
  get_commands: (_request, { session }) => ({
    data: {
      commands: session.commands().map((command) => ({
        name: command.name,
        description: command.description,
        ...(command.argumentHint ? { argument_hint: command.argumentHint } : {}),
        source: command.source,
        modes: [...command.modes],
      })),
    },
  }),
  command: (request, context) => {
    // Its outcome arrives as events, then command_done (a turn it runs ends with done).
    const start = async () => {
      const result = await context.session.runCommand(request.text, 'rpc', true, request.id);
      if (result.kind === 'prompt') return;
      const name = request.text.slice(1).split(/\s/)[0]!.toLowerCase();
      context.send({
        type: 'command_done',
        ...(request.id !== undefined ? { id: request.id } : {}),
        name,
        action: COMMAND_DONE_ACTIONS[result.kind],
      });
    };
    return { data: started, start };
  },
  reload_extensions: async (_request, { session }) => ({
    data: { extensions: await session.reloadExtensions() },
  }),
  panel_key: (request, { session }) => {
    const sent = session.panelKey(request.panel_id, request.key, request.text);
    return sent.ok ? done : { error: sent.error, kind: sent.kind };
  },
  confirm: (request, { waiting }) => {
    const answer = waiting.get(request.tool_id);
    if (!answer) {
      const error = `no confirmation is pending for tool call "${request.tool_id}"`;
      return { error, kind: 'not_found' };
    }
    waiting.delete(request.tool_id);
    answer(request.decision);
    return done;
  },
  ui_response: (request, { questions }) => {
    const open = questions.get(request.id);
    if (!open) {
      const error = `no ui_request is waiting with id "${request.id}" (answered already, withdrawn, or never asked)`;
      return { error, kind: 'not_found' };
    }
    const { question } = open;
    const problem = answerProblem(question, request);
    if (problem !== undefined) {
      const error = `ui_response ${request.id} (a ${question.kind} question of extension ${question.extension}): ${problem}`;
      return { error, kind: 'invalid_request' };
    }
    questions.delete(request.id);
    open.answer(request.cancelled ? { cancelled: true } : { value: request.value! });
    return done;
  },
  panel_close: (request, { session }) =>
    session.closePanel(request.panel_id)
      ? done
      : { error: `no open panel "${request.panel_id}"`, kind: 'not_found' },
};

/**
 * Handles one request: at once when its handler is synchronous (every one but a reload), so
 * work is started in the order it was asked for (an `abort` right after a `prompt` finds that
 * prompt). Contract: never throws or rejects; a handler that throws is a failure of the
 * error's own kind, `failed` when it has none.
 */
function handle(
  request: RpcRequest,
  context: Context,
): Outcome<RpcRequestType> | Promise<Outcome<RpcRequestType>> {
  const handler = HANDLERS[request.type] as Handler<RpcRequestType>;
  const failure = (error: unknown): Outcome<RpcRequestType> => ({
    error: errorMessage(error),
    kind: errorKindOf(error, 'failed'),
  });
  try {
    const outcome = handler(request as never, context);
    return outcome instanceof Promise ? outcome.catch(failure) : outcome;
  } catch (error) {
    return failure(error);
  }
}

/** The response line of an outcome. */
function responseOf(
  request: RpcRequest,
  outcome: Outcome<RpcRequestType>,
): RpcSuccess | RpcFailure {
  const base = {
    type: 'response' as const,
    ...(request.id !== undefined ? { id: request.id } : {}),
    command: request.type,
  };
  if ('error' in outcome) {
    return { ...base, success: false, error: outcome.error, error_kind: outcome.kind };
  }
  return {
    ...base,
    success: true,
    ...(outcome.data !== undefined ? { data: outcome.data } : {}),
  };
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
  open: () => Promise<RpcSession>,
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
  const questions: Questions = new Map();
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
    // The client answers extensions' questions too; a withdrawn one (deadline, the extension
    // exited) can no longer be answered.
    session.answerExtensionQuestions(
      (question, withdrawn) =>
        new Promise<ExtensionAnswer>((resolve) => {
          if (inputEnded) return resolve({ unavailable: true });
          questions.set(question.id, { question, answer: resolve });
          withdrawn.addEventListener(
            'abort',
            () => (questions.delete(question.id), resolve({ cancelled: true })),
            { once: true },
          );
          send({ type: 'ui_request', ...question });
        }),
    );
    if (!signal?.aborted) await session.startExtensions();
    return { session, info, waiting, questions, track, send };
  };
  const token = env.ZOTCORE_RPC_TOKEN;
  let context = token ? undefined : await start();
  let exitCode = 0;
  const refuse = (
    id: string | number | undefined,
    error: string,
    kind: ErrorKind,
    stop: () => void,
  ) => {
    send({
      type: 'response',
      ...(id !== undefined ? { id } : {}),
      command: 'hello',
      success: false,
      error,
      error_kind: kind,
    } satisfies RpcFailure);
    exitCode = 1;
    stop();
  };
  const onLine = async (line: string, stop: () => void) => {
    if (line.trim() === '') return;
    const decoded = decodeRpcLine(line);
    if (!context) {
      const id = decoded.ok ? decoded.request.id : decoded.id;
      const ok = decoded.ok && decoded.request.type === 'hello' && decoded.request.token === token;
      if (!ok) return refuse(id, UNAUTHORIZED, 'unauthorized', stop);
      try {
        context = await start();
      } catch (error) {
        writeDiagnostic(io.stderr, `zot: ${errorMessage(error)}`);
        return refuse(id, errorMessage(error), errorKindOf(error, 'failed'), stop);
      }
    }
    if (!decoded.ok) {
      const { ok: _ok, ...response } = decoded;
      send({
        type: 'response',
        ...response,
        success: false,
        error_kind: 'invalid_request',
      } satisfies RpcFailure);
      return;
    }
    const { request } = decoded;
    const reply = (outcome: Outcome<RpcRequestType>) => {
      send(responseOf(request, outcome));
      if ('start' in outcome && outcome.start) track(outcome.start());
    };
    const outcome = handle(request, context);
    // Not awaited: a slow request (reload_extensions) must not stop the reader, or a confirm
    // or abort sent meanwhile could never arrive.
    if (outcome instanceof Promise) track(outcome.then(reply));
    else reply(outcome);
  };
  const onOversize = (bytes: number, stop: () => void) => {
    if (!context) return refuse(undefined, UNAUTHORIZED, 'unauthorized', stop);
    send({
      type: 'response',
      command: 'unknown',
      success: false,
      error: `line of ${bytes} bytes exceeds the 32 MiB limit`,
      error_kind: 'invalid_request',
    } satisfies RpcFailure);
  };
  // Refused like an extension's line: JSON text is UTF-8, and a request read with U+FFFD in
  // place of its bytes is not the request that was sent.
  const onInvalidUtf8 = (bytes: number, text: string, stop: () => void) => {
    if (!context) return refuse(undefined, UNAUTHORIZED, 'unauthorized', stop);
    send({
      type: 'response',
      ...headerOf(text),
      success: false,
      error: `line of ${bytes} bytes is not valid UTF-8; requests are JSON in UTF-8`,
      error_kind: 'invalid_request',
    } satisfies RpcFailure);
  };
  await readLines(io.stdin, { onLine, onOversize, onInvalidUtf8 }, { gate: output, signal });
  if (!context) return exitCode;
  if (exitCode === 0 && !signal?.aborted) {
    // End of input means the input is complete (design D22): what was asked for still runs.
    inputEnded = true;
    for (const answer of waiting.values()) answer('deny');
    waiting.clear();
    for (const { answer } of questions.values()) answer({ unavailable: true });
    questions.clear();
    while (tasks.size > 0 || context.session.busy) {
      await Promise.allSettled(tasks);
      await context.session.idle();
    }
  }
  await context.session.close();
  return exitCode;
}
