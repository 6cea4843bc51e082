// One ACP session: a zot session whose events become `session/update` notifications, whose
// confirmations become permission requests, and whose prompts and slash commands run as the
// TUI's would.
import {
  RequestError,
  type AgentContext,
  type AvailableCommand,
  type ContentBlock,
  type PromptResponse,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { ConfirmDecision } from '../../contract/confirm.js';
import type { SessionEvent } from '../../contract/events.js';
import type { ExtensionAnswer } from '../../contract/extension-questions.js';
import type { AcpSession, PromptOutcome, SlashResult } from '../../contract/front-end.js';
import type { ExtensionUi } from '../../contract/extension-ui.js';
import { promptOf, stopReasonOf } from './content.js';
import {
  decisionOf,
  questionAnswer,
  questionCallId,
  questionPermissionRequest,
  toolPermissionRequest,
} from './permissions.js';
import { OldTexts } from './old-text.js';
import { askByForm, formProblem } from './questions.js';
import { ToolCalls } from './tool-calls.js';

export type ModeId = 'default' | 'ask';

export interface LinkOptions {
  /** --no-yolo: the default mode asks before every call no rule allows. */
  noYolo: boolean;
  /** Diagnostics (stderr): never stdout, which carries only ACP. */
  log: (message: string) => void;
  /** The client takes form elicitations (an extension's select and input questions). */
  forms: boolean;
}

/** A note from zot or an extension, as an agent message marked in `_meta`. */
function noteUpdate(text: string, note: Record<string, unknown>): SessionUpdate {
  return {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `\n\n${text}\n\n` },
    _meta: { zot: { note } },
  };
}

export class LinkedSession {
  private readonly tools: ToolCalls;
  /** What files held before `write` replaced them (the editor's fs writes fill it too). */
  readonly oldTexts: OldTexts;
  /** Commands are announced once the client knows the session (after its response). */
  private commandsRevision: number | undefined;
  private mode: ModeId = 'default';
  /** What runs now: a model prompt reports its errors in its response, a command as notes. */
  private running: 'prompt' | 'command' | undefined;
  private readonly detach: Array<() => void> = [];

  constructor(
    readonly id: string,
    readonly session: AcpSession,
    private readonly client: AgentContext,
    private readonly options: LinkOptions,
  ) {
    this.oldTexts = new OldTexts((path) => session.readDenial(path));
    this.tools = new ToolCalls(session.cwd, (update) => this.send(update), this.oldTexts);
  }

  /** Subscribes to the session and connects its confirmation and UI ports. */
  attach(): void {
    this.detach.push(this.session.subscribe((event) => this.onEvent(event)));
    this.detach.push(this.session.connectUi(this.ui()));
    this.applyMode();
    this.session.answerExtensionQuestions((question, withdrawn) =>
      this.askQuestion(question, withdrawn),
    );
  }

  /**
   * Updates wait until the client knows the session id (session/new's response is out); for a
   * loaded or resumed session it knows it from the start.
   */
  private held: SessionUpdate[] | undefined;

  send(update: SessionUpdate): void {
    if (this.held) {
      this.held.push(update);
      return;
    }
    // Ordered by the connection's write queue; a closed connection ends the session anyway.
    this.client.notify('session/update', { sessionId: this.id, update }).catch(() => undefined);
  }

  modes(): SessionModeState {
    const ask = 'Ask before every tool call that no permission rule allows';
    return {
      currentModeId: this.mode,
      availableModes: [
        {
          id: 'default',
          name: 'Default',
          description: this.options.noYolo
            ? `${ask} (--no-yolo)`
            : 'Tools run unless a permission rule asks or denies',
        },
        { id: 'ask', name: 'Ask', description: ask },
      ],
    };
  }

  /** The mode and the model, as ACP config options (selectors). */
  configOptions(): SessionConfigOption[] {
    const current = this.session.currentModel;
    return [
      {
        id: 'mode',
        name: 'Mode',
        category: 'mode',
        type: 'select',
        currentValue: this.mode,
        options: this.modes().availableModes.map((mode) => ({
          value: mode.id,
          name: mode.name,
          ...(mode.description ? { description: mode.description } : {}),
        })),
      },
      {
        id: 'model',
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: `${current.provider}/${current.id}`,
        options: this.session.models().map((model) => ({
          value: `${model.provider}/${model.id}`,
          name: model.id,
          description: model.provider,
        })),
      },
    ];
  }

  /** session/set_config_option: the mode, or the model (as `/model` would switch it). */
  setConfig(configId: string, value: unknown): SessionConfigOption[] {
    if (typeof value !== 'string') {
      throw RequestError.invalidParams({ configId }, `${configId} takes one of its options`);
    }
    if (configId === 'mode') this.setMode(value);
    else if (configId === 'model') {
      const known = this.session.models().some((m) => `${m.provider}/${m.id}` === value);
      if (!known) throw RequestError.invalidParams({ value }, `unknown model "${value}"`);
      this.session.setModel(value);
    } else throw RequestError.invalidParams({ configId }, `unknown config option "${configId}"`);
    const options = this.configOptions();
    this.send({ sessionUpdate: 'config_option_update', configOptions: options });
    return options;
  }

  setMode(id: string): void {
    if (id !== 'default' && id !== 'ask') {
      throw RequestError.invalidParams({ modeId: id }, `unknown mode "${id}" (default, ask)`);
    }
    this.mode = id;
    this.applyMode();
    this.send({ sessionUpdate: 'current_mode_update', currentModeId: id });
  }

  private applyMode(): void {
    const yolo = this.mode === 'default' && !this.options.noYolo;
    this.session.enableConfirmation((request, signal) => this.askTool(request, signal), { yolo });
  }

  /** Notes for the user once the client knows the session. */
  private readonly pending: string[] = [];

  later(note: string): void {
    this.pending.push(note);
  }

  /** Holds updates until `announce` (session/new: the client learns the id from the response). */
  hold(): void {
    this.held ??= [];
  }

  /** Once the session's response is out: what was held, the commands on offer, the notes kept. */
  announce(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const update of held) this.send(update);
    this.publishCommands();
    for (const text of this.pending.splice(0)) this.send(noteUpdate(text, { level: 'warn' }));
  }

  /** The slash commands on offer, as `available_commands_update`. */
  publishCommands(): void {
    this.commandsRevision = this.session.state().commands_revision;
    const availableCommands: AvailableCommand[] = this.session
      .commands()
      .filter((command) => command.modes.includes('rpc'))
      .map((command) => ({
        name: command.name,
        description:
          command.source === 'builtin'
            ? command.description
            : `${command.description} (${command.source})`,
        ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
      }));
    this.send({ sessionUpdate: 'available_commands_update', availableCommands });
  }

  private onEvent(event: SessionEvent): void {
    switch (event.type) {
      case 'text_delta':
        return this.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: event.delta },
        });
      case 'thinking_delta':
        return this.send({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: event.delta },
        });
      case 'tool_call':
        return this.tools.call(event);
      case 'tool_progress':
        return this.tools.progress(event);
      case 'tool_result':
        return this.tools.result(event);
      case 'state':
        if (
          this.commandsRevision !== undefined &&
          event.commands_revision !== this.commandsRevision
        ) {
          this.publishCommands();
        }
        return;
      case 'warning':
        return this.options.log(`zot: ${event.message}`);
      case 'error':
        this.options.log(`zot: ${event.message}`);
        // A prompt's error is its response's; anything else is shown where the user looks.
        if (this.running !== 'prompt')
          this.send(noteUpdate(`zot: ${event.message}`, { level: 'error' }));
        return;
      case 'ext_error':
        return this.send(
          noteUpdate(`[${event.extension}] ${event.message} (log: ${event.log_path})`, {
            extension: event.extension,
            level: 'error',
          }),
        );
      case 'ext_warning':
        return this.send(
          noteUpdate(`[${event.extension}] ${event.message}`, {
            extension: event.extension,
            level: 'warn',
            ...(event.untrusted ? { untrusted: true } : {}),
          }),
        );
      default:
        return;
    }
  }

  /** The extension-UI port: notes and blocks as agent messages; no panels, no editor buffer. */
  private ui(): ExtensionUi {
    const note = (extension: string, text: string, level = 'info') =>
      this.send(noteUpdate(`[${extension}] ${text}`, { extension, level }));
    return {
      notify: (event) => note(event.extension, event.message, event.level),
      clearNotes: () => undefined,
      display: (event) => note(event.extension, event.text, 'display'),
      insert: (event) => note(event.extension, event.text, 'insert'),
      submit: (event) =>
        note(event.extension, `asked to send a prompt (not sent): ${event.text}`, 'submit'),
      openPanel: (event) => {
        // The editor has no panel: the extension hears it closed at once.
        this.session.closePanel(event.panel.id);
        note(event.extension, 'opened a panel; panels are not shown over ACP', 'warn');
      },
      renderPanel: () => undefined,
      closePanel: () => undefined,
    };
  }

  private async askTool(
    request: Parameters<Parameters<AcpSession['enableConfirmation']>[0]>[0],
    signal: AbortSignal,
  ): Promise<ConfirmDecision> {
    if (signal.aborted) return 'deny';
    try {
      const response = await this.client.request(
        'session/request_permission',
        toolPermissionRequest(this.id, request),
        { cancellationSignal: signal },
      );
      const decision = signal.aborted ? 'deny' : decisionOf(response);
      if (decision !== 'deny') this.tools.running(request.tool_id);
      return decision;
    } catch (error) {
      if (!signal.aborted) this.options.log(`zot: permission request failed: ${String(error)}`);
      return 'deny';
    }
  }

  private async askQuestion(
    question: Parameters<Parameters<AcpSession['answerExtensionQuestions']>[0]>[0],
    withdrawn: AbortSignal,
  ): Promise<ExtensionAnswer> {
    // Yes/no is a permission request; select and input are forms, where the client has them.
    if (question.kind !== 'confirm') {
      const problem = formProblem(question, this.options.forms);
      if (problem === undefined) return askByForm(this.client, this.id, question, withdrawn);
      this.send(
        noteUpdate(`[${question.extension}] asked "${question.title}": ${problem}`, {
          extension: question.extension,
          level: 'warn',
        }),
      );
      return { unavailable: true };
    }
    const toolCallId = questionCallId(question);
    this.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: `${question.extension} asks: ${question.title}`,
      kind: 'other',
      status: 'pending',
    });
    let answer: boolean | undefined;
    try {
      const response = await this.client.request(
        'session/request_permission',
        questionPermissionRequest(this.id, question),
        { cancellationSignal: withdrawn },
      );
      answer = questionAnswer(response);
    } catch {
      answer = undefined;
    }
    this.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: answer === undefined ? 'failed' : 'completed',
      rawOutput: answer === undefined ? { cancelled: true } : { value: answer },
    });
    return answer === undefined ? { cancelled: true } : { value: answer };
  }

  /** Runs a prompt, or the slash command it is, and says why it stopped. */
  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    const { text, images, skipped } = promptOf(blocks);
    for (const what of skipped) this.send(noteUpdate(`zot: skipped ${what}`, { level: 'warn' }));
    if (images.length === 0 && /^\/\S/.test(text.trim())) {
      this.running = 'command';
      try {
        return this.commandResponse(await this.session.runCommand(text.trim(), 'rpc', true));
      } finally {
        this.running = undefined;
      }
    }
    const problem = this.session.keyProblem();
    if (problem !== undefined) throw RequestError.authRequired(undefined, problem);
    this.running = 'prompt';
    try {
      return responseOf(await this.session.prompt(text, images));
    } finally {
      this.running = undefined;
    }
  }

  private commandResponse(result: SlashResult): PromptResponse {
    switch (result.kind) {
      case 'prompt':
        return responseOf(result.outcome);
      case 'display':
        this.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: result.text },
        });
        break;
      case 'insert':
        this.send(
          noteUpdate(`[${result.extension}] ${result.text}`, {
            extension: result.extension,
            level: 'insert',
          }),
        );
        break;
      case 'panel':
        this.session.closePanel(result.panel.id);
        this.send(
          noteUpdate(`[${result.extension}] opened a panel; panels are not shown over ACP`, {
            extension: result.extension,
            level: 'warn',
          }),
        );
        break;
      case 'error':
        if (!result.reported) this.send(noteUpdate(`zot: ${result.message}`, { level: 'error' }));
        break;
      case 'noop':
        break;
    }
    return { stopReason: 'end_turn' };
  }

  /** A bash call's command runs in the editor's terminal `terminalId`. */
  terminalShown(toolCallId: string, terminalId: string): void {
    this.tools.terminal(toolCallId, terminalId);
  }

  /** session/cancel: the running turn stops, nothing queued runs. */
  cancel(): void {
    this.session.cancel();
  }

  async close(): Promise<void> {
    for (const undo of this.detach.splice(0)) undo();
    this.tools.close();
    await this.session.dispose();
  }
}

/** The response of a finished prompt, or the JSON-RPC error of a failed one. */
function responseOf(outcome: PromptOutcome): PromptResponse {
  const stopReason = stopReasonOf(outcome);
  if (stopReason !== undefined) return { stopReason };
  const message = outcome.error ?? 'the prompt failed';
  if (outcome.errorKind === 'auth') throw RequestError.authRequired(undefined, message);
  throw new RequestError(-32603, message, { errorKind: outcome.errorKind ?? 'failed' });
}
