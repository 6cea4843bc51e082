// ctrl+p and shift+tab against a fake session: which models the cycle goes through (ready
// providers only, the model in use always), what a busy session or a lone model says, the
// thinking levels in order; and the keys controller's ctrl+d and handed-off actions, rebound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeybindingsManager } from '@mariozechner/pi-tui';
import type {
  InteractiveSession,
  ProviderStatus,
  ReasoningChoice,
} from '../../contract/front-end.js';
import { createTheme } from '../../tui/theme.js';
import { cycleModels, nextReasoning, stepModel, stepReasoning } from './cycling.js';
import { KEY_ACTIONS } from './keybindings.js';
import { KeysController } from './keys.js';
import { Notes } from './notes.js';

function session(options: { busy?: boolean; current?: string; reasoning?: boolean } = {}) {
  let current = options.current ?? 'anthropic/a1';
  let level: ReasoningChoice = 'off';
  const ready = (provider: ProviderStatus['provider'], isReady: boolean): ProviderStatus => ({
    provider,
    needs_key: true,
    ready: isReady,
  });
  const model = (ref: string) => {
    const [provider, id] = ref.split('/') as [string, string];
    return { provider, id, contextWindow: 1000, reasoning: options.reasoning ?? true };
  };
  const fake = {
    busy: options.busy ?? false,
    state: () => {
      const [provider, model] = current.split('/');
      return { provider, model } as ReturnType<InteractiveSession['state']>;
    },
    providers: () => [ready('anthropic', true), ready('openai', false), ready('ollama', true)],
    models: () => ['anthropic/a1', 'anthropic/a2', 'openai/o1', 'ollama/l1'].map(model),
    setModel: (ref: string) => {
      current = ref;
      const [provider, id] = ref.split('/') as [string, string];
      return { provider, id };
    },
    reasoningLevel: () => level,
    setReasoningLevel: (next: ReasoningChoice) => void (level = next),
  };
  return fake as unknown as InteractiveSession & { readonly busy: boolean };
}

test('ctrl+p goes through the models of ready providers, around, and back with shift+ctrl+p', () => {
  const s = session();
  assert.deepEqual(cycleModels(s), ['anthropic/a1', 'anthropic/a2', 'ollama/l1']);
  assert.deepEqual(stepModel(s, 1), { text: 'model: anthropic/a2' });
  assert.deepEqual(stepModel(s, 1), { text: 'model: ollama/l1' });
  assert.deepEqual(stepModel(s, 1), { text: 'model: anthropic/a1' });
  assert.deepEqual(stepModel(s, -1), { text: 'model: ollama/l1' });
});

test('the model in use stays in the cycle even when its provider is not ready', () => {
  const s = session({ current: 'openai/o1' });
  assert.deepEqual(cycleModels(s), ['anthropic/a1', 'anthropic/a2', 'openai/o1', 'ollama/l1']);
  assert.equal(stepModel(s, 1).text, 'model: ollama/l1');
});

test('while a turn runs the model stays, and the user is told when it can change', () => {
  const outcome = stepModel(session({ busy: true }), 1);
  assert.equal(outcome.refused, true);
  assert.match(outcome.text, /between turns/);
});

test('shift+tab: off, low, medium, high, off; a model that does not think keeps its level', () => {
  assert.deepEqual(
    ['off', 'low', 'medium', 'high'].map((l) => nextReasoning(l as ReasoningChoice)),
    ['low', 'medium', 'high', 'off'],
  );
  const s = session();
  assert.deepEqual(stepReasoning(s), { text: 'thinking: low' });
  assert.equal(s.reasoningLevel(), 'low');
  const plain = session({ reasoning: false });
  const refused = stepReasoning(plain);
  assert.equal(refused.refused, true);
  assert.match(refused.text, /anthropic\/a1 does not think/);
  assert.equal(plain.reasoningLevel(), 'off');
});

function controller(bindings: Record<string, string | string[]> = {}) {
  let text = '';
  const log: string[] = [];
  const keys = new KeysController({
    session: { busy: false, unqueueLast: () => undefined } as unknown as InteractiveSession,
    theme: createTheme(undefined, false),
    notes: new Notes(() => undefined),
    editor: {
      get text() {
        return text;
      },
      setText: (value) => (text = value),
      isShowingAutocomplete: () => false,
    },
    toggleExpanded: () => log.push('expand'),
    exit: () => log.push('exit'),
    keybindings: new KeybindingsManager(KEY_ACTIONS, bindings as never),
    handlers: {
      'app.thinking.toggle': () => log.push('toggle thinking'),
      'app.model.next': () => log.push('next model'),
      'app.suspend': () => log.push('suspend'),
    },
  });
  return { keys, log, setText: (value: string) => (text = value) };
}

test('ctrl+d exits only from an empty editor; with text the editor deletes forward', () => {
  const c = controller();
  c.setText('draft');
  assert.equal(c.keys.handle('\x04'), false);
  assert.deepEqual(c.log, []);
  c.setText('');
  assert.equal(c.keys.handle('\x04'), true);
  assert.deepEqual(c.log, ['exit']);
});

test('handed-off actions run on their keys; a rebound key moves, an unbound one goes to the editor', () => {
  const c = controller();
  assert.equal(c.keys.handle('\x14'), true); // ctrl+t
  assert.equal(c.keys.handle('\x10'), true); // ctrl+p
  assert.equal(c.keys.handle('\x1a'), true); // ctrl+z
  assert.deepEqual(c.log, ['toggle thinking', 'next model', 'suspend']);
  // Without a handler (ctrl+g here) the key is not the controller's.
  assert.equal(c.keys.handle('\x07'), false);

  const rebound = controller({ 'app.model.next': 'alt+m', 'app.exit': [] });
  assert.equal(rebound.keys.handle('\x10'), false);
  assert.equal(rebound.keys.handle('\x1bm'), true);
  assert.equal(rebound.keys.handle('\x04'), false);
  assert.deepEqual(rebound.log, ['next model']);
});
