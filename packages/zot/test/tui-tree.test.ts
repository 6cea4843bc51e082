// End-to-end: the TUI's /tree and /merge in tmux, on a session file written before the tree
// existed (a conversation rewind in it): it resumes on the last branch, /tree lists both with
// their first prompts, Enter switches and a summary of the branch left is written (the scripted
// model's), /merge brings that summary back as a folded block the next prompt sends the model.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox } from './support/zot.js';

const skip = HAS_TMUX ? false : 'tmux is not installed';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(async () => {
  await llm.close();
});

const line = (value: unknown) => JSON.stringify(value) + '\n';
const say = (role: 'user' | 'assistant', text: string) =>
  line({ type: 'message', message: { role, content: [{ type: 'text', text }], time: 't' } });

test(
  '/tree lists and switches branches, a summary is written, /merge folds it in',
  { skip },
  async (t) => {
    const box = makeSandbox();
    t.after(box.cleanup);
    const file = join(box.home, 'old.jsonl');
    writeFileSync(
      file,
      line({
        type: 'session',
        version: 1,
        cwd: box.project,
        created: 't',
        provider: 'anthropic',
        model: 'm',
      }) +
        say('user', 'first question') +
        say('assistant', 'first answer') +
        say('user', 'plan alpha') +
        say('assistant', 'alpha went nowhere') +
        line({ type: 'rewind', time: 't', turn: 2, messages: 2 }) +
        say('user', 'plan beta') +
        say('assistant', 'beta found the bug in parse.ts'),
    );
    const zot = TmuxZot.start([...fakeLlmFlags(llm.url), '--session', file], {
      home: box.home,
      cwd: box.project,
      columns: 110,
      rows: 36,
    });
    t.after(() => zot.kill());
    const resumed = await zot.waitFor('beta found the bug');
    assert.doesNotMatch(resumed, /alpha went nowhere/, 'the last active branch is the one shown');

    zot.submit('/tree');
    const tree = await zot.waitFor('Tree: 2 branches');
    assert.match(tree, /1\. first question\s+2 prompts · 4 messages/);
    assert.match(tree, /2\. plan beta ✓\s+1 prompt · 4 messages · active/);

    llm.script({ text: 'Beta traced the bug to parse.ts line 40.' });
    zot.type('first');
    await zot.waitFor((s) => !s.includes('2. plan beta'));
    zot.press('Enter');
    const switched = await zot.waitFor('on branch 1 now (4 messages)');
    assert.match(switched, /a summary of branch 2 is written/);
    assert.match(switched, /alpha went nowhere/);
    assert.doesNotMatch(switched, /beta found the bug/, 'the chat shows the branch switched to');
    await zot.waitFor(() => readFileSync(file, 'utf8').includes('"by":"model"'));

    zot.submit('/tree');
    await zot.waitFor('summary: Beta trac'); // the detail column is cut to fit
    zot.press('Escape');
    await zot.waitFor((s) => !s.includes('Tree: 2 branches'));

    zot.submit('/merge 2');
    const merged = await zot.waitFor('merged branch 2 into this one (summary by model)');
    assert.match(merged, /merged branch 2: plan beta/, 'the merged context is a folded block');
    assert.doesNotMatch(
      merged,
      /Summary of branch 2, explored apart/,
      'folded: its text is hidden',
    );

    llm.script({ text: 'Fixing parse.ts then.' });
    zot.submit('so fix it');
    await zot.waitFor('Fixing parse.ts then.');
    const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
    assert.match(sent, /Beta traced the bug to parse\.ts line 40\./);
  },
);
