// A streamed answer's finished markdown blocks move into the chat's settled log as blocks of
// their own (so a frame renders only the block still growing): what the chat shows must stay
// what the whole text drawn at once shows, at every step, and after an interceptor's rewrite.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TUI } from '@mariozechner/pi-tui';
import { MarkdownView } from '../../tui/markdown-view.js';
import { VirtualTerminal } from '../../tui/testing/virtual-terminal.js';
import { createTheme, DARK } from '../../tui/theme.js';
import { ChatView } from './chat/chat-view.js';

const ANSWER = [
  '## Plan',
  '',
  'First **this**, then `that`:',
  '',
  '- one',
  '- two',
  '',
  '```ts',
  'const a = 1;',
  '',
  'const b = 2;',
  '```',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  '[ref]: https://example.com',
  '',
  '   ',
  '',
  '> quoted',
  '> text',
  '',
  'The end.',
].join('\n');

function chatOn(columns: number, color: boolean) {
  const terminal = new VirtualTerminal({ columns, rows: 20 });
  const tui = new TUI(terminal);
  const theme = createTheme(DARK, color);
  const chat = new ChatView({ tui, theme });
  chat.echo('go'); // a prompt, without the working indicator's line
  return { chat, theme, terminal };
}

for (const color of [true, false]) {
  for (const columns of [60, 200]) {
    test(`a streamed answer draws as its text drawn at once, at every step (${columns} columns, color ${color})`, () => {
      const { chat, theme, terminal } = chatOn(columns, color);
      const prompt = chat.container.render(columns);
      const expect = (text: string) => {
        const answer = new MarkdownView(theme, text).render(columns);
        return answer.length === 0 ? prompt : [...prompt, '', ...answer];
      };
      const deltas = ANSWER.match(/\S+|\s+/g)!;
      let text = '';
      for (const delta of deltas) {
        text += delta;
        chat.handle({ type: 'text_delta', delta });
        assert.deepEqual(chat.container.render(columns), expect(text), JSON.stringify(text));
      }
      // The final message rewritten by an interceptor: the rewrite wins, nothing of the stream
      // is left.
      const rewritten = '## Rewritten\n\nOnly this.\n\n- and this';
      chat.handle({
        type: 'assistant_message',
        content: [{ type: 'text', text: rewritten }],
        time: '',
      });
      chat.handle({ type: 'done' });
      assert.deepEqual(chat.container.render(columns), expect(rewritten));
      terminal.dispose();
    });
  }
}

test('the final message equal to the stream changes nothing', () => {
  const { chat, theme, terminal } = chatOn(80, false);
  const prompt = chat.container.render(80);
  for (const delta of ANSWER.match(/\S+|\s+/g)!) chat.handle({ type: 'text_delta', delta });
  chat.handle({ type: 'assistant_message', content: [{ type: 'text', text: ANSWER }], time: '' });
  chat.handle({ type: 'done' });
  assert.deepEqual(chat.container.render(80), [
    ...prompt,
    '',
    ...new MarkdownView(theme, ANSWER).render(80),
  ]);
  terminal.dispose();
});
