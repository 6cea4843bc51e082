// What ctrl+p / shift+ctrl+p (the next or previous model) and shift+tab (the thinking level)
// change. Each returns the line the user is shown: what it is now, or why nothing changed.
import {
  REASONING_CHOICES,
  type InteractiveSession,
  type ReasoningChoice,
} from '../../contract/front-end.js';

export interface Outcome {
  text: string;
  /** Nothing changed: said as a warning. */
  refused?: boolean;
}

/**
 * The models ctrl+p goes through: those of providers that can be called now (a key, a local
 * server, a base URL), in the picker's order, and the model in use even when no catalog lists it.
 */
export function cycleModels(session: InteractiveSession): string[] {
  const ready = new Set(
    session
      .providers()
      .filter((status) => status.ready)
      .map((status) => status.provider as string),
  );
  const state = session.state();
  const current = `${state.provider}/${state.model}`;
  const refs = session
    .models()
    .filter((model) => ready.has(model.provider) || `${model.provider}/${model.id}` === current)
    .map((model) => `${model.provider}/${model.id}`);
  return refs.includes(current) ? refs : [current, ...refs];
}

/** Switches to the next (`step` 1) or previous (-1) model of `cycleModels`. Never throws. */
export function stepModel(session: InteractiveSession, step: 1 | -1): Outcome {
  const refs = cycleModels(session);
  const state = session.state();
  const current = refs.indexOf(`${state.provider}/${state.model}`);
  if (refs.length < 2) {
    return { text: `${refs[0]} is the only model ready (/login adds a provider)`, refused: true };
  }
  if (session.busy) {
    return {
      text: 'the model changes between turns: press it again when this one ends',
      refused: true,
    };
  }
  const next = refs[(current + step + refs.length) % refs.length]!;
  try {
    const model = session.setModel(next);
    return { text: `model: ${model.provider}/${model.id}` };
  } catch (error) {
    return { text: (error as Error).message, refused: true };
  }
}

/** The thinking level after `level` (off, low, medium, high, off ...). */
export function nextReasoning(level: ReasoningChoice): ReasoningChoice {
  const index = REASONING_CHOICES.indexOf(level);
  return REASONING_CHOICES[(index + 1) % REASONING_CHOICES.length]!;
}

/** Whether the model in use can think (unknown models are given the benefit of the doubt). */
export function modelReasons(session: InteractiveSession): boolean {
  const { provider, model } = session.state();
  const info = session.models().find((m) => m.provider === provider && m.id === model);
  return info?.reasoning ?? true;
}

/** Moves the thinking level on (shift+tab). Never throws. */
export function stepReasoning(session: InteractiveSession): Outcome {
  if (!modelReasons(session)) {
    const { provider, model } = session.state();
    return { text: `${provider}/${model} does not think; the level stays as it is`, refused: true };
  }
  const level = nextReasoning(session.reasoningLevel());
  session.setReasoningLevel(level);
  return { text: `thinking: ${level}` };
}
