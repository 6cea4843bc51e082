// End-to-end in tmux: the TUI's dialogs over the runtime: the /model picker, /sessions
// (resume and rename), /login with a masked key checked before it is saved, /logout.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { HAS_TMUX, TmuxZot } from './support/tmux.js';
import { makeSandbox, runZot } from './support/zot.js';
import { EXAMPLES } from './support/extensions.js';

const PAPER = join(EXAMPLES, 'paper');

const skip = HAS_TMUX ? false : 'tmux is not installed';
let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

function setup(t: { after(fn: () => void): void }) {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  const open = (args: string[]) => {
    const zot = TmuxZot.start(args, { home: box.home, cwd: box.project, rows: 40 });
    t.after(() => zot.kill());
    return zot;
  };
  return { box, open };
}

test(
  '/model opens a picker: typing filters, Enter switches, the choice is saved',
  { skip },
  async (t) => {
    const { box, open } = setup(t);
    const zot = open(fakeLlmFlags(llm.url));
    await zot.waitFor('anthropic/claude-sonnet-4-5');
    zot.submit('/model');
    const picker = await zot.waitFor('Model');
    assert.match(picker, /claude-sonnet-4-5 ✓/, 'the model in use is marked');
    zot.type('haiku');
    await zot.waitFor((s) => !s.includes('gpt-5') && s.includes('claude-haiku'));
    zot.press('Enter');
    await zot.waitFor('model: anthropic/claude-haiku');
    const config = JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8'));
    assert.equal(config.provider, 'anthropic');
    assert.match(config.model, /^claude-haiku/);
    zot.submit('/model');
    await zot.waitFor('Model');
    zot.press('Escape');
    await zot.waitFor((s) => !s.includes('✓'));
  },
);

test(
  '/sessions lists this directory newest first; Enter resumes and replays; ctrl+r renames',
  { skip },
  async (t) => {
    const { open } = setup(t);
    const first = open(fakeLlmFlags(llm.url));
    await first.waitFor('anthropic/');
    llm.script({ text: 'the older answer' });
    first.submit('older question');
    await first.waitFor('the older answer');
    first.submit('/new');
    await first.waitFor((s) => !s.includes('older question'));
    llm.script({ text: 'the newer answer' });
    first.submit('newer question');
    await first.waitFor('the newer answer');
    first.submit('/sessions');
    const list = await first.waitFor('Sessions');
    assert.ok(list.indexOf('newer question') < list.indexOf('older question'), list);
    first.press('Down');
    first.press('C-r');
    await first.waitFor('Rename session');
    first.type('the old one');
    first.press('Enter');
    await first.waitFor('the old one');
    first.press('Enter');
    const resumed = await first.waitFor(/resumed\s+\S*\.jsonl/);
    assert.match(resumed, /older question/);
    assert.match(resumed, /the older answer/);
    assert.doesNotMatch(resumed, /newer question/);
    llm.script({ text: 'continued the old one' });
    first.submit('go on');
    await first.waitFor('continued the old one');
    assert.match(JSON.stringify(llm.requests.at(-1)!.body.messages), /older question/);
  },
);

test(
  '/login: pick the provider, type the key masked; a bad key is refused, a good one saved',
  { skip },
  async (t) => {
    const { box, open } = setup(t);
    const zot = open(['--provider', 'anthropic', '--base-url', llm.url]);
    await zot.waitFor('anthropic/');
    zot.submit('/login');
    await zot.waitFor('Log in');
    zot.type('anthropic');
    zot.press('Enter');
    await zot.waitFor('API key for anthropic');
    zot.type('bad-key');
    const masked = await zot.waitFor('•••••••');
    assert.doesNotMatch(masked, /bad-key/, 'the key is never shown');
    zot.press('Enter');
    await zot.waitFor('rejected the key (HTTP 401)');
    zot.press('C-u');
    for (let i = 0; i < 7; i++) zot.press('BSpace');
    zot.type('good-key');
    zot.press('Enter');
    await zot.waitFor('saved the anthropic key');
    const auth = JSON.parse(readFileSync(join(box.home, 'auth.json'), 'utf8'));
    assert.equal(auth.anthropic.key, 'good-key');
    llm.script({ text: 'logged in answer' });
    zot.submit('hi');
    await zot.waitFor('logged in answer');
    assert.equal(llm.requests.at(-1)!.headers['x-api-key'], 'good-key');
    zot.submit('/logout');
    await zot.waitFor('Log out');
    zot.press('Enter');
    await zot.waitFor('removed the saved anthropic key');
  },
);

test(
  '/skills lists the skills with their source; Enter shows the chosen one',
  { skip },
  async (t) => {
    const { box, open } = setup(t);
    const dir = join(box.project, '.zot', 'skills', 'deploy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'SKILL.md'),
      '---\ndescription: ship it\n---\nRun make deploy, then check.\n',
    );
    const zot = open(fakeLlmFlags(llm.url));
    await zot.waitFor('anthropic/');
    zot.submit('/skills');
    const list = await zot.waitFor('Skills (2)');
    assert.match(list, /deploy +ship it +project/);
    assert.match(list, /zot-extension/);
    zot.press('Enter');
    await zot.waitFor('Run make deploy, then check.');
  },
);

test(
  '/theme lists the built-in themes and a theme-only extension, previews live, saves the choice',
  { skip },
  async (t) => {
    const { box } = setup(t);
    const ocean = join(box.home, 'extensions', 'ocean');
    mkdirSync(ocean, { recursive: true });
    writeFileSync(join(ocean, 'extension.json'), JSON.stringify({ name: 'ocean' }));
    writeFileSync(
      join(ocean, 'theme.json'),
      JSON.stringify({ name: 'ocean', colors: { statusBar: '#00ff00' } }),
    );
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      rows: 40,
      env: { NO_COLOR: undefined },
    });
    t.after(() => zot.kill());
    await zot.waitFor('anthropic/');
    zot.submit('/theme');
    const list = await zot.waitFor('Theme');
    assert.match(list, /dark ✓/);
    assert.match(list, /ocean +extension/);
    zot.press('Down');
    zot.press('Down');
    // The status line takes ocean's colour while ocean is only highlighted.
    await zot.waitFor((s) => s.includes('38;2;0;255;0m'), { escapes: true });
    zot.press('Enter');
    await zot.waitFor('theme: ocean (saved)');
    assert.equal(JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8')).theme, 'ocean');
  },
);

test(
  'on a light terminal background (OSC 11) the light theme is used, unless a theme was saved',
  { skip },
  async (t) => {
    const { box } = setup(t);
    const start = () => {
      const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
        home: box.home,
        cwd: box.project,
        rows: 30,
        env: { NO_COLOR: undefined, COLORFGBG: undefined },
        // tmux answers OSC 11 with the pane's background.
        config: ['set -g window-style bg=white', 'set -g window-active-style bg=white'],
      });
      t.after(() => zot.kill());
      return zot;
    };
    const first = start();
    await first.waitFor('anthropic/');
    first.submit('/theme');
    assert.match(await first.waitFor('Theme'), /light ✓/);
    first.kill();
    writeFileSync(join(box.home, 'config.json'), JSON.stringify({ theme: 'dark' }));
    const second = start();
    await second.waitFor('anthropic/');
    second.submit('/theme');
    assert.match(await second.waitFor('Theme'), /dark ✓/);
  },
);

test(
  'the paper example installs as a theme-only extension and /theme applies it',
  { skip },
  async (t) => {
    const { box } = setup(t);
    const installed = await runZot(['ext', 'install', PAPER], { home: box.home, cwd: box.project });
    assert.equal(installed.code, 0, installed.stderr);
    const zot = TmuxZot.start(fakeLlmFlags(llm.url), {
      home: box.home,
      cwd: box.project,
      rows: 30,
      env: { NO_COLOR: undefined },
    });
    t.after(() => zot.kill());
    const screen = await zot.waitFor('anthropic/');
    assert.doesNotMatch(screen, /warning|paper/, 'the theme file loads without a warning');
    zot.submit('/theme');
    const list = await zot.waitFor('Theme');
    assert.match(list, /paper +extension/);
    zot.type('paper');
    // Highlighted, it is previewed: the status bar takes its colour (#5c5148).
    await zot.waitFor((s) => s.includes('38;2;92;81;72m'), { escapes: true });
    zot.press('Enter');
    await zot.waitFor('theme: paper (saved)');
    assert.equal(JSON.parse(readFileSync(join(box.home, 'config.json'), 'utf8')).theme, 'paper');
  },
);
