// Writes a zot session file of `turns` turns as a long working day leaves one: each turn a
// prompt, a bash call, a read or an edit (with its details), and an answer in markdown with a
// heading, a paragraph, a list, a code block and now and then a table; each model call's usage
// ($0.001 a call) and, early on, a name. Used by the tests that
// need a long transcript and by the tui-resume bench (from the compiled file).
import { writeFileSync } from 'node:fs';

const time = '2026-01-01T00:00:00.000Z';

function answer(turn: number): string {
  const lines = [
    `## Step ${turn}`,
    '',
    `Turn ${turn} changed **one thing** in \`src/module${turn % 17}.ts\`; see [the notes](https://example.com/${turn}).`,
    '',
    '- the parser now keeps its position',
    '- the tests cover the empty input',
    '',
    '```ts',
    `export function step${turn}(input: string): number {`,
    `  return input.length * ${turn};`,
    '}',
    '```',
  ];
  if (turn % 3 === 0) lines.push('', '| file | lines |', '|---|---|', `| a${turn}.ts | ${turn} |`);
  return lines.join('\n');
}

function toolTurn(turn: number): { call: object; result: object } {
  const id = `call_${turn}`;
  switch (turn % 3) {
    case 0: {
      const output = Array.from(
        { length: 12 },
        (_, i) => `line ${i} of the output of turn ${turn}`,
      );
      return {
        call: {
          type: 'tool_call',
          id,
          name: 'bash',
          args: { command: `ls -la src && wc -l src/*.ts # ${turn}` },
        },
        result: {
          type: 'tool_result',
          call_id: id,
          name: 'bash',
          is_error: false,
          content: [{ type: 'text', text: output.join('\n') }],
          details: {
            kind: 'bash',
            exit_code: 0,
            timed_out: false,
            aborted: false,
            truncated: false,
          },
        },
      };
    }
    case 1:
      return {
        call: { type: 'tool_call', id, name: 'read', args: { path: `src/module${turn % 17}.ts` } },
        result: {
          type: 'tool_result',
          call_id: id,
          name: 'read',
          is_error: false,
          content: [
            {
              type: 'text',
              text: Array.from({ length: 30 }, (_, i) => `${i + 1}\tconst v${i} = ${i};`).join(
                '\n',
              ),
            },
          ],
          details: { kind: 'read', path: `src/module${turn % 17}.ts`, total_lines: 30 },
        },
      };
    default:
      return {
        call: {
          type: 'tool_call',
          id,
          name: 'edit',
          args: { path: `src/module${turn % 17}.ts`, old_text: 'a', new_text: 'b' },
        },
        result: {
          type: 'tool_result',
          call_id: id,
          name: 'edit',
          is_error: false,
          content: [{ type: 'text', text: `Edited src/module${turn % 17}.ts` }],
          details: {
            kind: 'edit',
            path: `src/module${turn % 17}.ts`,
            added: 1,
            removed: 1,
            hunks: [
              {
                old_start: 10,
                old_lines: 3,
                new_start: 10,
                new_lines: 3,
                lines: [
                  ' const before = 1;',
                  `-const value = ${turn};`,
                  `+const value = ${turn + 1};`,
                  ' const after = 2;',
                ],
              },
            ],
          },
        },
      };
  }
}

/** Writes the session to `path`; `cwd` is the directory it belongs to. */
export function writeLongSession(
  path: string,
  { turns = 1000, cwd = '/tmp' }: { turns?: number; cwd?: string } = {},
): void {
  const out: object[] = [
    {
      type: 'session',
      version: 1,
      cwd,
      created: time,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    },
  ];
  const message = (m: object) => out.push({ type: 'message', message: { ...m, time } });
  // What each of the turn's two model calls cost, as zot records it after the call.
  const usage = () =>
    out.push({
      type: 'usage',
      time,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      input: 1000,
      output: 100,
      cache_read: 0,
      cache_write: 0,
      cost_usd: 0.001,
    });
  for (let turn = 0; turn < turns; turn++) {
    const { call, result } = toolTurn(turn);
    message({
      role: 'user',
      content: [{ type: 'text', text: `please do step ${turn} of the plan` }],
    });
    message({
      role: 'assistant',
      content: [{ type: 'text', text: `Looking at step ${turn}.` }, call],
    });
    usage();
    message({ role: 'tool', content: [result] });
    message({ role: 'assistant', content: [{ type: 'text', text: answer(turn) }] });
    usage();
    if (turn === 10) out.push({ type: 'name', time, name: 'long day' });
  }
  writeFileSync(path, out.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
}
