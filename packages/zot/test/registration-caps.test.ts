// What one extension may register, and what one model request offers, are bounded: 20,000
// registrations made every request 40 MB. The excess is refused with a named error in the
// extension's log and in `zot ext doctor`; so are schemas no call could pass.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REGISTRATION_LIMITS } from '../src/extensions/registrations.js';
import { expectNoLeftovers, FAST_TIMEOUTS, makeExtension } from './support/extensions.js';
import { fakeLlmFlags, startFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { makeSandbox, runZot } from './support/zot.js';

let llm: FakeLlm;
before(async () => {
  llm = await startFakeLlm();
});
after(() => llm.close());

test('tools and commands past the limits are refused and reported; a request offers at most the bound', async (t) => {
  const box = makeSandbox();
  t.after(() => box.cleanup());
  expectNoLeftovers(t, box.home);
  const root = join(box.home, 'extensions');
  const { toolsPerExtension, commandsPerExtension, offeredTools } = REGISTRATION_LIMITS;
  const many = makeExtension(root, 'many', 'well-behaved', {
    tools: [
      { name: 'dialect', schema: { $schema: 'https://json-schema.org/draft/2020-12/schema' } },
      { name: 'stringy', schema: { anyOf: [{ type: 'string' }] } },
      ...Array.from({ length: toolsPerExtension + 50 }, (_, i) => `t${i}`),
    ],
    commands: Array.from({ length: commandsPerExtension + 10 }, (_, i) => `c${i}`),
  });
  llm.script({ text: 'ok' });
  const run = await runZot(['-p', 'hi', ...fakeLlmFlags(llm.url), '--no-session'], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  assert.equal(run.code, 0, run.stderr);
  const offered = (llm.requests.at(-1)!.body.tools ?? []).map(
    (tool: { name: string }) => tool.name,
  );
  const fromExtension = offered.filter((name: string) => /^t\d+$/.test(name));
  assert.equal(fromExtension.length, offeredTools);
  assert.deepEqual(fromExtension.slice(0, 3), ['t0', 't1', 't2'], 'in registration order');
  assert.ok(!offered.includes('dialect') && !offered.includes('stringy'));

  const log = readFileSync(join(box.home, 'logs', 'ext-many.log'), 'utf8');
  assert.match(log, new RegExp(`over the limit of ${toolsPerExtension} tools per extension`));
  assert.equal(log.match(/over the limit of \d+ tools/g)?.length, 1, 'one line, not one per tool');

  const doctor = await runZot(['ext', 'doctor', '--ext', many], {
    home: box.home,
    cwd: box.project,
    env: FAST_TIMEOUTS,
  });
  const text = doctor.stdout;
  assert.match(
    text,
    new RegExp(
      `register_tool "t${toolsPerExtension}": over the limit of ${toolsPerExtension} tools per extension`,
    ),
  );
  assert.match(
    text,
    new RegExp(
      `register_command "c${commandsPerExtension}": over the limit of ${commandsPerExtension} commands`,
    ),
  );
  assert.match(
    text,
    new RegExp(
      `${toolsPerExtension - offeredTools} of its tools, from t${offeredTools} on, are not offered to the model: one request offers at most ${offeredTools} extension tools`,
    ),
  );
  assert.match(
    text,
    /register_tool "dialect": its schema cannot be used: "\$schema" is "https:\/\/json-schema.org\/draft\/2020-12\/schema"/,
  );
  assert.match(
    text,
    /register_tool "stringy": .*no arguments object can match it: \/anyOf: no branch accepts an object/,
  );
});
