// Concurrent zot processes writing the same $ZOT_HOME state files never lose each other's writes.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeExtension } from './support/ext-fixtures.js';
import { makeSandbox, runZot } from './support/zot.js';

const boxes: Array<{ cleanup(): void }> = [];
after(() => boxes.forEach((box) => box.cleanup()));

const PROVIDERS = ['anthropic', 'openai', 'ollama', 'kimi'];

/** The files in ZOT_HOME but keys/, where every run may make the code cache's key. */
const stateFiles = (home: string) => readdirSync(home).filter((name) => name !== 'keys');

test('concurrent `zot auth set` for different providers keep every key', async () => {
  const box = makeSandbox();
  boxes.push(box);
  // A few fresh homes, so the race on the very first write is exercised too.
  for (const round of [1, 2, 3]) {
    const home = join(box.home, `round${round}`);
    mkdirSync(home);
    const results = await Promise.all(
      PROVIDERS.map((provider) =>
        runZot(['auth', 'set', provider], {
          home,
          cwd: box.project,
          input: `key-${provider}-${round}`,
          timeoutMs: 60_000,
        }),
      ),
    );
    results.forEach((result) => assert.equal(result.code, 0, result.stderr));
    const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8'));
    assert.deepEqual(
      Object.fromEntries(PROVIDERS.map((p) => [p, auth[p]?.key])),
      Object.fromEntries(PROVIDERS.map((p) => [p, `key-${p}-${round}`])),
    );
    assert.deepEqual(stateFiles(home), ['auth.json'], 'no lock file is left behind');
  }
});

test('8 concurrent `zot ext trust <name> --yes` for 8 project extensions record all 8', async () => {
  const box = makeSandbox();
  boxes.push(box);
  const names = Array.from({ length: 8 }, (_, i) => `ext${i}`);
  for (const name of names) writeExtension(join(box.project, '.zot', 'extensions'), { name });
  const results = await Promise.all(
    names.map((name) =>
      runZot(['ext', 'trust', name, '--yes'], {
        home: box.home,
        cwd: box.project,
        timeoutMs: 60_000,
      }),
    ),
  );
  results.forEach((result) => assert.equal(result.code, 0, result.stderr));
  const store = JSON.parse(readFileSync(join(box.home, 'trust.json'), 'utf8'));
  const trusted = Object.values(store.extensions as Record<string, { name: string }>);
  assert.deepEqual(trusted.map((record) => record.name).sort(), names);
  assert.deepEqual(stateFiles(box.home), ['trust.json'], 'no lock file is left behind');
});
