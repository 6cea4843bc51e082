// The session's side of its extensions: starting the host and wiring it in (events, tools,
// hooks), restarting it, and the trust answers that decide which project extensions run.
import type { AgentHooks } from '../agent/hooks.js';
import type { SessionEvent } from '../contract/events.js';
import type { AnswerExtension } from '../contract/extension-questions.js';
import type { ExtensionHost, ExtensionReport } from '../extensions/host.js';
import { wireExtensions } from './extension-hooks.js';
import type { SessionOptions } from './session-options.js';
import type { SessionEntry } from './store.js';
import {
  applyTrustAnswers,
  type TrustAnswer,
  type TrustOutcome,
  type TrustReview,
} from './trust.js';

/** What the extensions need of the session they run in. */
export interface ExtensionSessionPort {
  emit(event: SessionEvent): void;
  refreshState(): void;
  record(entry: SessionEntry): void;
  subscribe(listener: (event: SessionEvent) => void): () => void;
  /** Runs `run` in the session's operation queue. */
  enqueue<T>(run: () => Promise<T>): Promise<T>;
}

const settled = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    () => undefined,
  );

export class SessionExtensions {
  host: ExtensionHost | undefined;
  /** The agent's hooks: the session's own, then the extensions' once they are wired in. */
  hooks: AgentHooks;
  /** Settles when the extensions prompts wait for are ready (or failed). */
  starting: Promise<void> | undefined;
  /** Settles when every extension started at launch is ready (or failed). */
  started: Promise<void> | undefined;
  /** Who answers extensions' questions; each host wired in is told (see attach). */
  private answerer: AnswerExtension | undefined;

  constructor(
    private readonly options: SessionOptions,
    private readonly session: ExtensionSessionPort,
  ) {
    this.host = options.extensions;
    this.hooks = options.hooks ?? {};
  }

  /** As `Session.startExtensions`. */
  async start(wait: 'all' | 'needed'): Promise<void> {
    const host = this.host;
    if (!host) return;
    this.attach(host);
    const { needed, all } = host.begin();
    // Every one waited for: none is held back for the first model request (see startHeld).
    if (wait === 'all') host.startHeld('every extension is waited for');
    // A prompt sent while extensions start (the TUI takes input at once) waits for them: a
    // guard's interceptors must be in place before the first tool call can happen.
    this.starting = settled(wait === 'needed' ? needed : all);
    this.started = settled(all);
    // What loaded and what failed is part of the snapshot (the TUI's status line shows it).
    void this.started.then(() => this.session.refreshState());
    await this.starting;
  }

  /** As `Session.answerExtensionQuestions`. */
  answerQuestionsWith(answer: AnswerExtension): void {
    this.answerer = answer;
    this.host?.answerQuestionsWith(answer);
  }

  /** Wires a host into the session: its events, tools, hooks and the lifecycle it follows. */
  private attach(host: ExtensionHost): void {
    if (this.answerer) host.answerQuestionsWith(this.answerer);
    host.subscribe((event) => this.session.emit(event));
    host.onCommandsChanged(() => this.session.refreshState());
    this.options.tools.addSource(host.toolSource);
    const wiring = wireExtensions(host, {
      emit: (event) => this.session.emit(event),
      // The audit entries are checked as `intercept` entries when the file is loaded again.
      record: (entry) => this.session.record(entry as SessionEntry),
    });
    this.hooks = { ...this.hooks, ...wiring.hooks };
    this.session.subscribe(wiring.forward);
  }

  /** Project extensions waiting for the user's trust (the TUI's dialog); [] when none. */
  trustReviews(): Promise<TrustReview[]> {
    return this.options.trust?.reviews().catch(() => []) ?? Promise.resolve([]);
  }

  /** Applies trust answers; extensions restart when that changes what runs. Never rejects. */
  decideTrust(answers: readonly TrustAnswer[]): Promise<TrustOutcome> {
    const access = this.options.trust;
    if (!access) {
      const message = 'no project extensions to trust here';
      return Promise.resolve({
        errors: answers.map(({ review }) => ({ dir: review.dir, message })),
      });
    }
    return applyTrustAnswers(access, answers, () => this.reload());
  }

  /** Restarts every extension (starting the host first if there was none); queued. */
  reload(): Promise<ExtensionReport[]> {
    const host = this.host;
    if (host) return this.session.enqueue(() => host.reload());
    const load = this.options.loadExtensions;
    if (!load) return Promise.resolve([]);
    return this.session.enqueue(async () => {
      const created = await load();
      this.host = created;
      this.attach(created);
      const reports = await created.start();
      this.session.refreshState();
      return reports;
    });
  }
}
