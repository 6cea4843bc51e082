// Registration frames with random content: register_tool with a random schema, register_command
// with odd names, subscribe with random event lists. Shared by the registration target and the
// end-to-end stream.
import { serialize, type Tree } from './json-text.js';
import { mutate } from './lines.js';
import type { Rng } from './prng.js';
import { EXTENSION_FRAMES, fieldsOf } from './samples.js';
import { schema } from './schemas.js';
import { adversarialString, key, value, type Limits } from './values.js';

const EXTENSION_FIELDS = fieldsOf(EXTENSION_FRAMES);

/** A register_tool line with a random schema and a name that is sometimes invalid. */
export function toolLine(rng: Rng, limits: Limits): string {
  const name = rng.chance(0.7)
    ? rng.pick(['t', 'weather', 'bash', 'a-b_c'])
    : adversarialString(rng, limits);
  const frame = {
    type: 'register_tool',
    name,
    description: 'd',
    schema: schema(rng, limits, rng.range(0, 6)),
  };
  return serialize(rng.chance(0.3) ? mutate(rng, frame, limits, EXTENSION_FIELDS) : frame);
}

export function subscribeLine(rng: Rng, limits: Limits): string {
  const names = () =>
    Array.from({ length: rng.size(8) }, () =>
      rng.chance(0.5) ? rng.pick(['tool_call', 'turn_start', 'input', 'session_start']) : key(rng),
    );
  return serialize({
    type: 'subscribe',
    events: names(),
    intercept: rng.chance(0.1) ? value(rng, limits) : names(),
  });
}

/** A register_command line: names valid, slashed, too long, odd or of the wrong type. */
export function commandLine(rng: Rng, limits: Limits): string {
  const name = rng.weighted<Tree>([
    [3, () => rng.pick(['weather', '/weather', 'a.b:c-d', 'x'.repeat(64), 'x'.repeat(65), '/'])],
    [3, () => adversarialString(rng, limits)],
    [1, () => key(rng)],
  ]);
  const description = rng.chance(0.8) ? adversarialString(rng, limits) : value(rng, limits, 2);
  return serialize({ type: 'register_command', name, description });
}
