// Tool round trip: in-process agent overhead from the model's tool_call to the next model request,
// minus the tool's own execute time, with runAgent, against a raw `readFile` of a 20-line file
// (the least work a real tool call does) and, for information, a minimal hand-written loop.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, ROOT, row, rounds, summarize } from '../lib/common.mjs';

// The loop's own cost per round trip stays below half the cost of reading one small file.
const TARGET = { maxRatio: 0.5 };
/** Tool calls per agent run; a round trip is one tool call followed by the next request. */
const CALLS_PER_RUN = 50;
const TIME = new Date().toISOString();
const USAGE = { input: 10, output: 5, cache_read: 0, cache_write: 0 };
const MODEL = {
  id: 'bench-model',
  name: 'bench model',
  provider: 'anthropic',
  api: 'anthropic-messages',
  reasoning: false,
  contextWindow: 200_000,
  maxTokens: 8192,
  prices: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
};

/**
 * A probe shared by a scripted stream and a timed tool. Each model request (the StreamFn call)
 * closes the round trip opened by the previous tool_call event and records its overhead.
 */
function createProbe() {
  const probe = {
    samples: [],
    toolSamples: [],
    callAt: undefined,
    toolMs: 0,
    remaining: 0,
    seq: 0,
    /** The first error result of a tool: the figures would not measure a working call. */
    failure: undefined,
    /** Wraps a tool so that its own execute time is measured and excluded. */
    timed(tool) {
      return {
        ...tool,
        async execute(args, context) {
          const start = performance.now();
          const output = await tool.execute(args, context);
          probe.toolMs += performance.now() - start;
          if (output.isError) probe.failure ??= output.content[0]?.text ?? 'error';
          return output;
        },
      };
    },
    /** A StreamFn: `remaining` tool calls (one per request), then a final text answer. */
    stream: (name, args) => (request) => {
      const now = performance.now();
      if (probe.callAt !== undefined) {
        probe.samples.push(now - probe.callAt - probe.toolMs);
        probe.toolSamples.push(probe.toolMs);
        probe.callAt = undefined;
      }
      return events(request, name, args);
    },
  };
  async function* events(_request, name, args) {
    yield { type: 'start' };
    if (probe.remaining > 0) {
      probe.remaining--;
      const block = { type: 'tool_call', id: `call_${++probe.seq}`, name, args: { ...args } };
      probe.toolMs = 0;
      probe.callAt = performance.now();
      yield { type: 'tool_call', id: block.id, name, args: block.args };
      const message = { role: 'assistant', content: [block], time: TIME };
      yield { type: 'done', message, stop: 'tool_use', usage: USAGE };
    } else {
      yield { type: 'text_delta', delta: 'done' };
      const message = { role: 'assistant', content: [{ type: 'text', text: 'done' }], time: TIME };
      yield { type: 'done', message, stop: 'end_turn', usage: USAGE };
    }
  }
  /** The overheads recorded since the last take; the tool times go to `toolTimes`. */
  probe.take = (toolTimes) => {
    if (probe.failure !== undefined) throw new Error(`the tool failed: ${probe.failure}`);
    const out = probe.samples;
    toolTimes?.push(...probe.toolSamples);
    probe.samples = [];
    probe.toolSamples = [];
    return out;
  };
  return probe;
}

const userMessage = () => ({ role: 'user', content: [{ type: 'text', text: 'go' }], time: TIME });

/** One runAgent call with CALLS_PER_RUN round trips (the probe records them). */
async function agentRun(runAgent, probe, tool, args, cwd) {
  probe.remaining = CALLS_PER_RUN;
  const stream = probe.stream(tool.name, args);
  let events = 0;
  const setup = {
    cwd,
    maxSteps: CALLS_PER_RUN + 2,
    hooks: {},
    activeTools: () => [tool],
    findTool: (name) => (name === tool.name ? tool : undefined),
    settings: () => ({ model: MODEL, baseUrl: 'http://127.0.0.1:9', apiKey: 'k', system: 'bench' }),
    stream: () => stream,
    usage: (_model, usage) => {
      const fields = { ...usage, cost_usd: 0 };
      return { call: fields, cumulative: fields };
    },
    emit: () => {
      events++;
    },
    append: () => {},
  };
  const result = await runAgent([userMessage()], setup, new AbortController().signal);
  if (result.stop !== 'end_turn')
    throw new Error(`runAgent stopped with ${result.stop}: ${result.error}`);
  if (events === 0) throw new Error('runAgent emitted no events');
}

/** The raw baseline: the least a loop must do (stream, run the tool, append, stream again). */
async function rawRun(probe, tool, args, cwd) {
  probe.remaining = CALLS_PER_RUN;
  const stream = probe.stream(tool.name, args);
  const transcript = [userMessage()];
  const signal = new AbortController().signal;
  const tools = [{ name: tool.name, description: tool.description, parameters: tool.parameters }];
  for (;;) {
    let done;
    const request = {
      model: MODEL,
      baseUrl: '',
      system: 'bench',
      messages: transcript,
      tools,
      signal,
    };
    for await (const event of stream(request)) if (event.type === 'done') done = event;
    transcript.push(done.message);
    const calls = done.message.content.filter((block) => block.type === 'tool_call');
    if (calls.length === 0) break;
    const content = [];
    for (const call of calls) {
      const context = { cwd, toolCallId: call.id, signal, onProgress() {} };
      const output = await tool.execute(call.args, context);
      content.push({
        type: 'tool_result',
        call_id: call.id,
        is_error: false,
        content: output.content,
      });
    }
    transcript.push({ role: 'tool', content, time: TIME });
  }
}

export async function run(options) {
  const { runAgent } = await import(join(ROOT, 'packages/zot/dist/src/agent/loop.js'));
  const { createReadTool } = await import(join(ROOT, 'packages/zot/dist/src/tools/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'zot-bench-'));
  try {
    const file = join(dir, 'small.txt');
    writeFileSync(
      file,
      Array.from({ length: 20 }, (_, i) => `line ${i + 1} of a small file\n`).join(''),
    );
    const probe = createProbe();
    const trivial = probe.timed({
      name: 'echo',
      description: 'Returns its argument.',
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: false,
      },
      execute: async (args) => ({ content: [{ type: 'text', text: `n=${args.n}` }] }),
    });
    const read = probe.timed(createReadTool());
    const trivialArgs = { n: 1 };
    const readArgs = { path: 'small.txt' };
    const readTimes = [];
    const fns = {
      readFile: async () => {
        const out = [];
        for (let i = 0; i < CALLS_PER_RUN; i++) {
          const start = performance.now();
          await readFile(file, 'utf8');
          out.push(performance.now() - start);
        }
        return out;
      },
      rawEcho: () => rawRun(probe, trivial, trivialArgs, dir).then(() => probe.take()),
      agentEcho: () =>
        agentRun(runAgent, probe, trivial, trivialArgs, dir).then(() => probe.take()),
      rawRead: () => rawRun(probe, read, readArgs, dir).then(() => probe.take()),
      agentRead: () =>
        agentRun(runAgent, probe, read, readArgs, dir).then(() => probe.take(readTimes)),
    };
    // 2000 measured round trips per subject after 500 of warm-up (JIT, ajv compile, fs).
    await interleave(rounds(options, 10, 4), fns);
    readTimes.length = 0;
    const samples = await interleave(rounds(options, 40, 10), fns);
    const loop = (raw, agent) =>
      `the bare hand-written loop's overhead: ${summarize(raw).median.toFixed(4)} ms ` +
      `(runAgent ${(summarize(agent).median / summarize(raw).median).toFixed(1)}x that)`;
    return {
      name: 'tool-roundtrip',
      rows: [
        row(
          'trivial tool: agent overhead per round trip vs readFile',
          samples.readFile,
          samples.agentEcho,
          TARGET,
          { note: `trivial tool: ${loop(samples.rawEcho, samples.agentEcho)}` },
        ),
        row(
          'read tool (small file): agent overhead per round trip vs readFile',
          samples.readFile,
          samples.agentRead,
          TARGET,
          {
            note:
              `read tool: ${loop(samples.rawRead, samples.agentRead)}; the tool's own execute ` +
              `time (excluded) has a median of ${summarize(readTimes).median.toFixed(3)} ms`,
          },
        ),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
