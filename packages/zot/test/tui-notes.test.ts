// The TUI's notes and warnings in a narrow terminal (tmux): start-up warnings show in the chat
// and every note wraps between words, never inside one.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

/**
 * The lines from the one starting with `first` to the one ending with `last`, trimmed and joined
 * with single spaces: equal to the message only when every line break fell between words.
 */
function rejoined(screen: string, first: string, last: string): string {
  const lines = screen.split('\n').map((line) => line.trim());
  const from = lines.findIndex((line) => line.startsWith(first));
  const to = lines.findIndex((line, i) => i >= from && line.endsWith(last));
  assert.ok(from >= 0 && to >= from, `"${first}" ... "${last}" on the screen:\n${screen}`);
  return lines.slice(from, to + 1).join(' ');
}

test(
  'start-up warnings and the unknown-model note show in the chat, wrapped at words',
  { skip },
  async (t) => {
    const box = makeSandbox();
    t.after(() => box.cleanup());
    const modelsJson = join(box.home, 'models.json');
    writeFileSync(
      modelsJson,
      JSON.stringify([{ provider: 'kimi', id: 'k', contextWindow: 'lots' }]),
    );
    const zot = TmuxZot.start(
      ['--provider', 'openai', '--base-url', llm.url, '--model', 'my-model', '--no-session'],
      { home: box.home, cwd: box.project, columns: 64, rows: 40 },
    );
    t.after(() => zot.kill());
    const started = await zot.waitFor('openai/my-model');
    const warning = `warning: ${modelsJson}: entry 0: field "contextWindow" must be a positive integer (got "lots")`;
    assert.equal(rejoined(started, 'warning:', '(got "lots")'), warning);
    assert.doesNotMatch(
      started,
      /knows no limits/,
      'nothing is said about the model before a call',
    );

    llm.script({ text: 'answer from my-model' });
    zot.submit('hi');
    const answered = await zot.waitFor('answer from my-model');
    const note =
      'warning: zot knows no limits for openai/my-model: it assumes context 128000, max output ' +
      `8192 (set them in ${modelsJson}), and speaks Chat Completions to it. Said once per model.`;
    assert.equal(rejoined(answered, 'warning: zot knows', 'Said once per model.'), note);
    assert.equal(llm.requests.at(-1)!.format, 'openai-chat');
  },
);
