// The streaming detail a UI needs, end to end in JSON mode and in every wire format: thinking
// and tool-argument deltas, the call's preview, and result details the model never sees.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { jsonLines, makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

const FORMATS = {
  anthropic: (url: string) => ['--provider', 'anthropic', '--base-url', url, '--reasoning', 'high'],
  'openai-responses': (url: string) => [
    '--provider',
    'openai',
    '--model',
    'gpt-5',
    '--base-url',
    url,
  ],
  'openai-chat': (url: string) => ['--provider', 'ollama', '--base-url', `${url}/v1`],
};

type Event = Record<string, unknown> & { type: string };

/** The event types in order, with runs of the same delta type collapsed to one. */
function shape(events: Event[]): string[] {
  const out: string[] = [];
  for (const { type } of events) {
    if (type === 'state' || type === 'tool_progress') continue;
    if (type.endsWith('_delta') && out.at(-1) === type) continue;
    out.push(type);
  }
  return out;
}

for (const [format, flags] of Object.entries(FORMATS)) {
  test(`JSON mode (${format}): thinking_delta, text_delta, tool_call_delta, then tool_call with preview and tool_result with details`, async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    writeFileSync(join(box.project, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const edit = { path: 'notes.txt', edits: [{ oldText: 'beta', newText: 'BETA' }] };
    llm.script(
      {
        thinking: ['Edit ', 'it.'],
        text: ['On ', 'it.'],
        toolCalls: [
          { id: 'c_edit', name: 'edit', args: edit },
          { id: 'c_bash', name: 'bash', args: { command: 'echo hi\nexit 3' } },
        ],
      },
      { text: 'Done.' },
    );
    const first = llm.requests.length;
    const result = await runZot(['--json', 'go', '--api-key', 'k', ...flags(llm.url)], {
      home: box.home,
      cwd: box.project,
    });
    assert.equal(result.code, 0, result.stderr);
    const events = jsonLines(result.stdout);
    assert.deepEqual(shape(events).slice(0, 16), [
      'user_message',
      'turn_start',
      'assistant_start',
      'thinking_delta',
      'text_delta',
      'tool_call_delta', // edit's arguments
      'usage',
      'assistant_message',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'turn_end',
      'turn_start',
      'assistant_start',
      'text_delta',
    ]);
    const of = <T extends string>(type: T) => events.filter((e) => e.type === type);
    assert.equal(
      of('thinking_delta')
        .map((e) => e.delta)
        .join(''),
      'Edit it.',
    );

    // The argument deltas of each call carry its id and name and join to its arguments.
    const deltas = of('tool_call_delta');
    for (const [id, name, args] of [
      ['c_edit', 'edit', edit],
      ['c_bash', 'bash', { command: 'echo hi\nexit 3' }],
    ] as const) {
      const mine = deltas.filter((e) => e.id === id);
      assert.ok(mine.length > 1, `${id} streamed in pieces`);
      assert.ok(mine.every((e) => e.name === name));
      assert.deepEqual(JSON.parse(mine.map((e) => e.delta).join('')), args);
    }

    const calls = of('tool_call');
    assert.deepEqual(
      calls.map((e) => [e.id, e.preview]),
      [
        ['c_edit', 'notes.txt'],
        ['c_bash', 'echo hi ↵ exit 3'],
      ],
    );
    const [edited, bashed] = of('tool_result');
    assert.deepEqual(edited!.details, {
      kind: 'edit',
      path: 'notes.txt',
      added: 1,
      removed: 1,
      hunks: [
        {
          old_start: 1,
          old_lines: 3,
          new_start: 1,
          new_lines: 3,
          lines: [' alpha', '-beta', '+BETA', ' gamma'],
        },
      ],
    });
    assert.deepEqual(bashed!.details, {
      kind: 'bash',
      exit_code: 3,
      timed_out: false,
      aborted: false,
      truncated: false,
    });
    assert.equal(bashed!.is_error, true);

    // The model gets the results' content only.
    const continuation = JSON.stringify(llm.requests[first + 1]!.body);
    assert.match(continuation, /exit code 3/);
    assert.ok(!/details|hunks|old_start|timed_out/.test(continuation), continuation);

    // The session file keeps the details with the result (for a UI that resumes it).
    const dir = join(box.home, 'sessions', readdirSync(join(box.home, 'sessions'))[0]!);
    const file = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
    const toolMessage = file
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((entry) => entry.type === 'message' && entry.message.role === 'tool');
    assert.deepEqual(
      toolMessage.message.content.map((r: { details: unknown }) => r.details),
      [edited!.details, bashed!.details],
    );
  });
}
