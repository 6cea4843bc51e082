// The boundaries under fuzz: each turns one random input into a call of the boundary function
// and throws when a contract is broken. A throw from the boundary itself is the main finding.
import {
  decodeFromExtension,
  decodeFromHost,
  exceedsJsonDepth,
  type DecodeResult,
  type RegisterCommandFrame,
  type RegisterToolFrame,
  type SubscribeFrame,
} from '@zot/protocol';
import { loadValidator, validateArgs } from '../../src/agent/validate.js';
import {
  checkCommand,
  checkSubscription,
  checkTool,
  loadSchemaCheck,
} from '../../src/extensions/registrations.js';
import { decodeRpcLine } from '../../src/modes/rpc-decode.js';
import { nest, serialize } from './json-text.js';
import { adversarialLine, decodedLine, depth, toBytes } from './lines.js';
import type { Rng } from './prng.js';
import {
  EXTENSION_FRAMES,
  fieldsOf,
  HOST_FRAMES,
  RPC_REQUESTS,
  SESSION_ENTRIES,
} from './samples.js';
import { commandLine, subscribeLine, toolLine } from './registration-lines.js';
import { deepToolLine } from './schemas.js';
import { checkDeferredReads, parseSessionText } from './session-adapter.js';
import { builtFrames, uniqueArrays } from './built-frames.js';
import { validationCosts } from './validation-cost.js';
import { checkSplitter, type SplitterInput } from './splitter.js';
import { shell } from './shell.js';
import { checkTuiCase, generateTuiCase, type TuiCase } from './tui-text.js';
import { value, type Limits } from './values.js';

await loadSchemaCheck(); // checkTool checks schemas with it

export interface FuzzTarget<I> {
  readonly name: string;
  /** Runs once before the first case. */
  setup?(): Promise<void>;
  generate(rng: Rng, limits: Limits): I;
  /** Throws when a contract is broken, or lets the boundary's own throw escape. */
  check(input: I): void;
  /** The input as text, for the failure report. */
  show(input: I): string;
}

const EXTENSION_FIELDS = fieldsOf(EXTENSION_FRAMES);
const HOST_FIELDS = fieldsOf(HOST_FRAMES);

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`contract broken: ${message}`);
}

/**
 * What the caller does next with a boundary's output must work too; a throw there is reported
 * as such, apart from a throw escaping the boundary itself.
 */
function serializable(what: string, value: unknown): void {
  try {
    JSON.stringify(value);
  } catch (error) {
    throw new Error(`downstream: ${what} cannot be serialised: ${String(error)}`);
  }
}

/** A decoded frame may only be a plain object of a known type, within the depth bound. */
function checkDecoded(result: DecodeResult): void {
  if (result.ok) {
    assert(typeof result.frame.type === 'string', 'a decoded frame has a string type');
    assert(!exceedsJsonDepth(result.frame), 'a decoded frame is within the depth bound');
  } else {
    assert(typeof result.error === 'string' && result.error !== '', 'a failure names its error');
  }
  serializable('a decode result (logged, previewed)', result);
}

const decode: FuzzTarget<{ side: 'extension' | 'host'; line: string }> = {
  name: 'decode',
  generate(rng, limits) {
    const side = rng.chance(0.75) ? 'extension' : 'host';
    const [samples, fields] =
      side === 'extension' ? [EXTENSION_FRAMES, EXTENSION_FIELDS] : [HOST_FRAMES, HOST_FIELDS];
    return { side, line: decodedLine(rng, samples, limits, fields) };
  },
  check({ side, line }) {
    checkDecoded(side === 'extension' ? decodeFromExtension(line) : decodeFromHost(line));
  },
  show: (input) => `${input.side}: ${input.line}`,
};

const splitter: FuzzTarget<SplitterInput> = {
  name: 'splitter',
  generate(rng, limits) {
    const parts: Buffer[] = [];
    for (let n = rng.size(20); n >= 0; n--) {
      const line = adversarialLine(rng, EXTENSION_FRAMES, limits, EXTENSION_FIELDS);
      parts.push(toBytes(rng, line), Buffer.from(rng.pick(['\n', '\n', '\r\n', '\n\n', '\r\r\n'])));
    }
    if (rng.chance(0.5)) parts.pop(); // a last line without LF
    const stream = Buffer.concat(parts);
    const cuts = new Set<number>();
    for (let n = rng.size(Math.min(64, stream.length)); n > 0; n--)
      cuts.add(rng.int(stream.length + 1));
    if (rng.chance(0.2)) for (let i = 1; i < Math.min(stream.length, 300); i++) cuts.add(i); // byte by byte
    return {
      stream,
      cuts: [...cuts].sort((a, b) => a - b),
      maxLineBytes: rng.chance(0.5) ? rng.range(0, 256) : rng.size(limits.maxBytes * 2),
      keepEmptyLines: rng.chance(0.3),
      reportInvalidUtf8: rng.chance(0.5),
      end: rng.chance(0.7),
    };
  },
  check: checkSplitter,
  show: (input) =>
    `${JSON.stringify({ ...input, stream: undefined, cuts: input.cuts.slice(0, 20) })} stream: ${input.stream.toString('latin1')}`,
};

const REGISTRATIONS = EXTENSION_FRAMES.filter((f) =>
  ['register_tool', 'register_command', 'subscribe'].includes(String(f.type)),
);

/** Console warnings written while checking registrations (Ajv logs unknown formats there). */
export const consoleWarnings = { count: 0 };

/** Plain JSON, as a provider's parser would hand tool arguments over (no raw tokens). */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const registration: FuzzTarget<{ line: string; args: unknown }> = {
  name: 'registration',
  setup: loadValidator,
  generate(rng, limits) {
    const line = rng.weighted<string>([
      [6, () => toolLine(rng, limits)],
      [3, () => deepToolLine(rng, depth(rng, limits))],
      [2, () => subscribeLine(rng, limits)],
      [2, () => commandLine(rng, limits)],
      [3, () => adversarialLine(rng, REGISTRATIONS, limits, EXTENSION_FIELDS)],
    ]);
    // Tool arguments as a model might send them: short strings keep slow patterns bounded.
    const args = jsonValue(
      serialize(value(rng, { maxBytes: 16, maxDepth: 4 }, 3, ['a', 'b', 'x', 'self'])),
    );
    return { line, args };
  },
  check(input) {
    // Counted, not printed: thousands of lines of noise otherwise (see the fuzz report).
    const warn = console.warn;
    console.warn = () => void consoleWarnings.count++;
    try {
      checkRegistration(input.line, input.args);
    } finally {
      console.warn = warn;
    }
  },
  show: (input) => `${input.line}\nargs: ${JSON.stringify(input.args)}`,
};

function checkRegistration(line: string, args: unknown): void {
  const decoded = decodeFromExtension(line);
  checkDecoded(decoded);
  if (!decoded.ok) return;
  const frame = decoded.frame;
  if (frame.type === 'register_command') {
    const result = checkCommand(frame as RegisterCommandFrame);
    assert(typeof result === 'string' || typeof result.name === 'string', 'a command has a name');
  } else if (frame.type === 'subscribe') {
    const subscribe = frame as SubscribeFrame;
    checkSubscription(subscribe.events ?? [], subscribe.intercept ?? []);
  } else if (frame.type === 'register_tool') {
    const result = checkTool(frame as RegisterToolFrame);
    if (typeof result === 'string') return;
    serializable('an accepted tool schema (sent with every model request)', result.schema);
    // Accepted means usable: a schema Ajv cannot compile would fail every call of the tool.
    const verdict = validateArgs(result.name, result.schema, args) ?? '';
    assert(
      !/has an invalid schema/.test(verdict),
      `an accepted schema does not compile: ${verdict}`,
    );
  }
}

const rpc: FuzzTarget<string> = {
  name: 'rpc',
  generate: (rng, limits) => decodedLine(rng, RPC_REQUESTS, limits, fieldsOf(RPC_REQUESTS)),
  check(line) {
    const result = decodeRpcLine(line);
    if (result.ok) {
      assert(typeof result.request.type === 'string', 'a request has a string type');
      assert(!exceedsJsonDepth(result.request), 'a request is within the depth bound');
    } else {
      assert(
        typeof result.error === 'string' && typeof result.command === 'string',
        'a failure names its error and command',
      );
    }
    serializable('an RPC decode result (the response is JSON)', result);
  },
  show: (line) => line,
};

const SESSION_FIELDS = fieldsOf(SESSION_ENTRIES);

function deepMessage(rng: Rng, limits: Limits): string {
  const content = nest(depth(rng, limits), '{"type":"text","text":"x"}', '[', ']');
  return `{"type":"message","message":{"role":"user","content":[${content}],"time":"t"}}`;
}

const session: FuzzTarget<string> = {
  name: 'session',
  generate(rng, limits) {
    const lines = [JSON.stringify(SESSION_ENTRIES[0])];
    for (let n = rng.size(30); n > 0; n--) {
      lines.push(
        rng.weighted<string>([
          [3, () => JSON.stringify(rng.pick(SESSION_ENTRIES))],
          [8, () => decodedLine(rng, SESSION_ENTRIES, limits, SESSION_FIELDS)],
          [1, () => rng.pick(['null', '0', '"x"', '[]', 'true', '{}', '[null]'])],
          // A well-formed message whose content nests deep: loaded, then sent to a provider.
          [1, () => deepMessage(rng, limits)],
        ]),
      );
    }
    const newline = rng.chance(0.2) ? '\r\n' : '\n';
    return lines.join(newline) + (rng.chance(0.7) ? newline : '');
  },
  check(text) {
    const loaded = parseSessionText(text);
    assert(
      Array.isArray(loaded.messages) && Array.isArray(loaded.warnings),
      'messages and warnings are arrays',
    );
    serializable('the loaded transcript (sent to the model as JSON)', loaded.messages);
    checkDeferredReads(text, loaded);
  },
  show: (text) => text,
};

const tui: FuzzTarget<TuiCase> = {
  name: 'tui',
  generate: generateTuiCase,
  check: checkTuiCase,
  show: (input) => JSON.stringify(input),
};

/** Every in-process target, in the order `npm run fuzz` runs them. */
export const TARGETS: ReadonlyArray<FuzzTarget<any>> = [
  decode,
  splitter,
  registration,
  rpc,
  session,
  shell,
  builtFrames,
  uniqueArrays,
  validationCosts,
  tui,
];
