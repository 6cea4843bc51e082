// Fuzz targets for what zot builds itself from untrusted data: frames from tool arguments (deep,
// wide, at and past every bound), and validation of long arrays under uniqueItems and enum.
import { Ajv } from 'ajv';
import {
  answer,
  decodeFromExtension,
  decodeFromHost,
  encodeFrame,
  FRAME_LIMITS,
  jsonLimitProblem,
  MAX_JSON_DEPTH,
  MAX_TOOL_ARGS_DEPTH,
  MAX_TOOL_ARGS_VALUES,
  parseBoundedJson,
  type FrameFromHost,
} from '@zot/protocol';
import { unusableArgs } from '../../src/agent/tool-call.js';
import { loadValidator, validateArgs } from '../../src/agent/validate.js';
import { rewrittenArgsProblem } from '../../src/extensions/intercept.js';
import { parseToolArgs } from '../../src/providers/assemble.js';
import { nest, record, serialize, type Tree } from './json-text.js';
import type { Rng } from './prng.js';
import type { FuzzTarget } from './targets.js';
import { PROTO_KEYS, value, type Limits } from './values.js';

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`contract broken: ${message}`);
}

/** A depth near a bound zot keeps (arguments, frames) or far past them. */
function nearBound(rng: Rng, limits: Limits): number {
  return rng.weighted<number>([
    [3, () => rng.range(MAX_TOOL_ARGS_DEPTH - 3, MAX_TOOL_ARGS_DEPTH + 3)],
    [3, () => rng.range(MAX_JSON_DEPTH - 4, MAX_JSON_DEPTH + 2)],
    [1, () => rng.range(MAX_JSON_DEPTH + 3, Math.max(MAX_JSON_DEPTH + 3, limits.maxDepth))],
  ]);
}

/** Tool arguments as a model's stream carries them: JSON text, an object at the top. */
function argsText(rng: Rng, limits: Limits): string {
  return rng.weighted<string>([
    [4, () => serialize(record([['a', value(rng, limits, 4, ['a', 'command'])]]))],
    [
      5,
      () => {
        const [open, close] = rng.pick([
          ['{"a":', '}'],
          ['[', ']'],
          ['{"__proto__":', '}'],
          ['[{"x":', '}]'],
        ] as const);
        const inner = serialize(value(rng, limits, 2));
        return `{"a":${nest(nearBound(rng, limits) - 1, inner, open, close)}}`;
      },
    ],
    // About as many values as the bound allows, one side of it or the other.
    [1, () => `{"xs":[${'0,'.repeat(MAX_TOOL_ARGS_VALUES - 3 + rng.range(0, 4))}0]}`],
  ]);
}

/** Every frame zot builds from one tool call's arguments, and a session line holding them. */
function framesFrom(args: Record<string, unknown>): FrameFromHost[] {
  const call = { tool_id: 'c1', tool_name: 'anyobj', tool_args: args };
  return [
    { type: 'event_intercept', id: '1', event: 'tool_call', ...call },
    { type: 'event', event: 'tool_call', ...call },
    { type: 'tool_call', id: '2', name: 'anyobj', args },
  ] as FrameFromHost[];
}

function checkFramesFrom(args: Record<string, unknown>, what: string): void {
  for (const frame of framesFrom(args)) {
    const problem = jsonLimitProblem(frame, FRAME_LIMITS);
    assert(problem === undefined, `zot would build a ${frame.type} frame ${problem} (${what})`);
    const decoded = decodeFromHost(encodeFrame(frame).slice(0, -1));
    assert(decoded.ok, `an SDK cannot read the ${frame.type} frame zot built (${what})`);
  }
  const line = JSON.stringify({
    type: 'message',
    message: { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 't', args }] },
  });
  assert(parseBoundedJson(line).ok, `the session line of the call cannot be read back (${what})`);
}

export const builtFrames: FuzzTarget<string> = {
  name: 'frames',
  generate: argsText,
  check(text) {
    const args = parseToolArgs(text);
    const refused = unusableArgs('anyobj', args);
    if (refused === undefined) checkFramesFrom(args, 'arguments from the model');
    else
      assert(
        /deeper than|more than|larger than|not valid JSON/.test(refused),
        `a refusal names its bound: ${refused}`,
      );
    // The same value as an interceptor's rewrite: accepted only if zot can send what follows.
    const parsed = parseBoundedJson(text);
    if (!parsed.ok) return;
    if (rewrittenArgsProblem(parsed.value) === undefined)
      checkFramesFrom(parsed.value as Record<string, unknown>, 'rewritten arguments');
    // An SDK answering with the rewrite: either the answer goes out, or the error answer does.
    const request = { type: 'event_intercept' as const, id: '9' };
    const built = answer(request, { modified_args: parsed.value });
    const reply = built.ok ? built : answer(request, { error: `cannot answer: ${built.error}` });
    assert(reply.ok, 'an SDK can always send an answer, if only an error');
    assert(decodeFromExtension(JSON.stringify(reply.reply)).ok, 'zot reads the answer');
  },
  show: (text) => text,
};

/** Items whose JSON equality is subtle: key order, -0, numbers against strings, prototype keys. */
function item(rng: Rng, tag: number): Tree {
  return rng.weighted<Tree>([
    [3, () => tag],
    [2, () => `s${tag}`],
    [
      2,
      () =>
        rng.chance(0.5)
          ? record([
              ['a', tag],
              ['b', [tag]],
            ])
          : record([
              ['b', [tag]],
              ['a', tag],
            ]),
    ],
    [1, () => record([[rng.pick(PROTO_KEYS), tag]])],
    [1, () => [tag, [tag]]],
  ]);
}

interface UniqueInput {
  schema: Record<string, unknown>;
  items: unknown[];
  /** Set for long arrays: whether a duplicate was planted (the verdict to expect). */
  planted?: boolean;
}

const stock = new Ajv({ allErrors: true, strict: false, logger: false });

export const uniqueArrays: FuzzTarget<UniqueInput> = {
  name: 'unique',
  setup: loadValidator,
  generate(rng, limits) {
    const long = rng.chance(0.1);
    // Long arrays: tens of thousands of items (the bound in `npm run fuzz`), all distinct but
    // for one planted duplicate, or none. Short ones: tags collide often.
    const most = Math.min(MAX_TOOL_ARGS_VALUES - 2, Math.max(1000, limits.maxBytes));
    const count = long ? rng.range(1000, most) : rng.size(40);
    const tags = long ? count : Math.max(1, rng.size(count));
    const items = Array.from({ length: count }, (_, i) =>
      JSON.parse(serialize(item(rng, long ? i : rng.int(tags)))),
    );
    let planted: boolean | undefined;
    if (long) {
      const [from, to] = [rng.int(count), rng.int(count)];
      planted = from !== to && rng.chance(0.5);
      if (planted) items[to] = JSON.parse(JSON.stringify(items[from]));
    }
    const xs: Record<string, unknown> = { type: 'array', uniqueItems: true };
    if (!long && rng.chance(0.4)) {
      const members = Array.from({ length: rng.range(1, 20) }, () =>
        JSON.parse(serialize(item(rng, rng.int(tags)))),
      );
      xs['items'] = { enum: members };
    }
    return { schema: { type: 'object', properties: { xs } }, items, planted };
  },
  check({ schema, items, planted }) {
    const ours = validateArgs('t', schema, { xs: items });
    if (planted !== undefined) {
      assert(
        planted === /must NOT have duplicate items/.test(ours ?? ''),
        `a long array is judged ${ours === undefined ? 'unique' : 'not unique'}, planted: ${planted}`,
      );
      return;
    }
    // Ajv's own keywords, pairwise and slow but exact: the same verdict on short arrays.
    let expected: boolean;
    try {
      expected = stock.validate(schema, { xs: items }) as boolean;
    } catch {
      return; // Ajv's equality calls an own valueOf/toString: no verdict to compare with
    }
    assert(expected === (ours === undefined), `Ajv says ${expected}, zot says ${ours}`);
  },
  show: (input) =>
    `${JSON.stringify(input.schema)} planted: ${input.planted} items: ${JSON.stringify(input.items).slice(0, 2000)}`,
};
