// The validation worker: one thread, started when a call first needs it and then kept (unref'd:
// it never keeps zot running), that validates the arguments too costly for the event loop
// (check-args.ts decides). Requests run one at a time, in order, each compiled schema kept in
// the thread. Each request has a deadline from the moment the thread starts on it: past it,
// the thread is terminated (the only way to stop Ajv in the middle of a check), the call fails
// closed with an error naming the tool and the limit, and the next request gets a new thread.
// The thread sees no environment variables and has a heap of its own, capped: a check that
// would exhaust it kills the thread, not zot.
import type { Worker } from 'node:worker_threads';
import type { JsonSchema } from '../providers/types.js';

/** The variable that sets how long the worker may take over one call's arguments. */
export const VALIDATION_TIMEOUT_ENV = 'ZOT_VALIDATION_TIMEOUT_MS';
export const DEFAULT_VALIDATION_TIMEOUT_MS = 10_000;

/** Contract: never throws; a value that is not a positive number gives the default. */
export function validationTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[VALIDATION_TIMEOUT_ENV] || NaN);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_VALIDATION_TIMEOUT_MS;
}

/** The thread's old-generation heap: Ajv keeps an error object for every failed check. */
const HEAP_MB = 512;
/** A guard against a thread that never finishes loading Ajv; not a limit on validation. */
const START_GUARD_MS = 60_000;
const WORKER_URL = new URL('./validation-worker.js', import.meta.url);

export type ToValidationWorker =
  | { type: 'validate'; id: number; key: number; schema?: JsonSchema; tool: string; args: unknown }
  | { type: 'forget'; key: number };
type FromValidationWorker =
  | { type: 'ready' }
  | { type: 'compiled'; id: number }
  | { type: 'verdict'; id: number; verdict: string | null };

interface Running {
  request: Request;
  timer?: NodeJS.Timeout;
  /** The thread has compiled the schema and is checking the arguments. */
  compiled?: boolean;
}

export interface WorkerValidation {
  tool: string;
  schema: JsonSchema;
  args: unknown;
  /** Defaults to validationTimeoutMs(). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Request extends WorkerValidation {
  id: number;
  timeoutMs: number;
  finish(verdict: string | undefined): void;
}

const notChecked = (tool: string, why: string) =>
  `the arguments for tool "${tool}" could not be checked against its schema (${why}), so the tool was not run`;

export class ValidationPool {
  #worker: Worker | undefined;
  #started: Promise<Worker> | undefined;
  /** Keys of the schemas the current thread holds. */
  #known = new Set<number>();
  #keys = new WeakMap<JsonSchema, number>();
  #nextKey = 1;
  #nextId = 1;
  /** Counts threads dropped: a thread still being created for an older one is not kept. */
  #generation = 0;
  #queue: Request[] = [];
  #running: Running | undefined;
  /** A schema nobody holds any more (its tool is gone) is dropped from the thread too. */
  #forget = new FinalizationRegistry<number>((key) => {
    if (this.#known.delete(key)) this.#worker?.postMessage({ type: 'forget', key });
  });

  constructor(private readonly url: URL = WORKER_URL) {}

  /**
   * Why `args` are not valid for the tool, or could not be checked in time; undefined when
   * they are valid. Contract: never rejects; settles within the request's deadline once the
   * thread has started on it (or at once when `signal` aborts).
   */
  validate(validation: WorkerValidation): Promise<string | undefined> {
    const { tool, signal } = validation;
    if (signal?.aborted) return Promise.resolve(`${tool}: not run, the turn was aborted`);
    return new Promise((resolve) => {
      const onAbort = () => this.#abort(request);
      const request: Request = {
        ...validation,
        id: this.#nextId++,
        timeoutMs: validation.timeoutMs ?? validationTimeoutMs(),
        finish: (verdict) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(verdict);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(request);
      this.#next();
    });
  }

  /** Terminates the thread (tests; zot itself leaves it unref'd). Contract: never throws. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#reset();
    await worker?.terminate();
  }

  #next(): void {
    if (this.#running || this.#queue.length === 0) return;
    const request = this.#queue.shift()!;
    const running: Running = { request };
    this.#running = running;
    this.#thread().then(
      (worker) => {
        if (this.#running !== running) return; // aborted while the thread started
        running.timer = setTimeout(() => this.#timedOut(running), request.timeoutMs);
        this.#send(worker, request);
      },
      (error: Error) => {
        if (this.#running === running)
          this.#done(
            request,
            notChecked(request.tool, `the validator could not start: ${error.message}`),
          );
      },
    );
  }

  #send(worker: Worker, request: Request): void {
    let key = this.#keys.get(request.schema);
    if (key === undefined) {
      key = this.#nextKey++;
      this.#keys.set(request.schema, key);
      this.#forget.register(request.schema, key);
    }
    const known = this.#known.has(key);
    const message: ToValidationWorker = {
      type: 'validate',
      id: request.id,
      key,
      tool: request.tool,
      args: request.args,
      ...(known ? {} : { schema: request.schema }),
    };
    try {
      worker.postMessage(message);
      this.#known.add(key);
    } catch (error) {
      // Arguments are parsed JSON, which always clones; a guard, never expected to fire.
      const why = error instanceof Error ? error.message : String(error);
      this.#done(
        request,
        notChecked(request.tool, `they could not be sent to the validator: ${why}`),
      );
    }
  }

  #done(request: Request, verdict: string | undefined): void {
    if (this.#running?.request === request) {
      clearTimeout(this.#running.timer);
      this.#running = undefined;
    }
    request.finish(verdict);
    this.#next();
  }

  #timedOut(running: Running): void {
    if (this.#running !== running) return;
    const { tool, timeoutMs } = running.request;
    const limit = `${timeoutMs} ms, zot's limit (${VALIDATION_TIMEOUT_ENV})`;
    this.#reset();
    this.#done(
      running.request,
      running.compiled
        ? `${notChecked(tool, `checking them took longer than ${limit}`)}: the schema is too costly to check against arguments this large; call the tool again with smaller arguments`
        : `${notChecked(tool, `compiling the schema took longer than ${limit}`)}: the schema is too large; its extension must simplify it, or the user may raise ${VALIDATION_TIMEOUT_ENV}`,
    );
  }

  #abort(request: Request): void {
    const queued = this.#queue.indexOf(request);
    if (queued !== -1) this.#queue.splice(queued, 1);
    else if (this.#running?.request === request) this.#reset();
    else return;
    this.#done(request, `${request.tool}: not run, the turn was aborted`);
  }

  /** Drops the current thread (terminating it); the next request starts another. */
  #reset(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#started = undefined;
    this.#generation++;
    this.#known.clear();
    void worker?.terminate();
  }

  #died(worker: Worker, why: string): void {
    if (worker !== this.#worker) return;
    this.#reset();
    const running = this.#running;
    if (running?.timer !== undefined)
      this.#done(
        running.request,
        notChecked(running.request.tool, `the validator stopped: ${why}`),
      );
  }

  #thread(): Promise<Worker> {
    this.#started ??= this.#start();
    return this.#started;
  }

  #start(): Promise<Worker> {
    const generation = this.#generation;
    const started = import('node:worker_threads').then(
      ({ Worker }) =>
        new Promise<Worker>((resolve, reject) => {
          if (generation !== this.#generation) return reject(new Error('it was dropped'));
          const worker = new Worker(this.url, {
            env: {},
            stdout: true,
            stderr: true,
            resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
          });
          this.#worker = worker;
          worker.unref();
          // Never onto zot's own output (RPC and JSON modes' stdout is protocol).
          worker.stdout.resume();
          worker.stderr.resume();
          const fail = (why: string) => {
            clearTimeout(guard);
            reject(new Error(why));
            this.#died(worker, why);
          };
          const guard = setTimeout(
            () => fail(`it did not start within ${START_GUARD_MS} ms`),
            START_GUARD_MS,
          );
          worker.on('message', (message: FromValidationWorker) => {
            if (message.type === 'ready') {
              clearTimeout(guard);
              resolve(worker);
            } else if (worker !== this.#worker || this.#running?.request.id !== message.id) {
              return; // a verdict that came too late
            } else if (message.type === 'compiled') this.#running.compiled = true;
            else this.#done(this.#running.request, message.verdict ?? undefined);
          });
          worker.on('error', (error) => fail(error.message));
          worker.on('exit', (code) => fail(`it exited with status ${code}`));
        }),
    );
    // A thread that could not even be created: the next request tries again.
    started.catch(() => {
      if (this.#started === started) this.#started = undefined;
    });
    return started;
  }
}

const pool = new ValidationPool();

/** Validates in zot's one validation worker; see ValidationPool.validate. */
export function validateInWorker(validation: WorkerValidation): Promise<string | undefined> {
  return pool.validate(validation);
}
