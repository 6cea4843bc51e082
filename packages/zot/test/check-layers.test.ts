// scripts/check-layers.mjs over a small fixture tree: a clean tree passes, and each planted
// import that breaks a rule is refused with its file, line and rule named. The fixture mirrors
// the real layout (a contract schema module on TypeBox, a light contract module, session, modes,
// tui) so each case changes exactly one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/check-layers.mjs');

const CLEAN: Record<string, string> = {
  'contract/events.ts': [
    "import { Type, type Static } from '@sinclair/typebox';",
    'export const EventSchema = Type.Object({ type: Type.String() });',
    'export type Event = Static<typeof EventSchema>;',
  ].join('\n'),
  'contract/errors.ts': "export const ERROR_KINDS = ['auth', 'network'] as const;",
  'contract/ports.ts':
    "import type { Event } from './events.js';\nexport interface Port { on(e: Event): void }",
  'session/session.ts': [
    "import type { Event } from '../contract/events.js';",
    "export type { Port } from '../contract/ports.js';",
    "import { ERROR_KINDS } from '../contract/errors.js';",
    'export const kinds = ERROR_KINDS;',
    'export type Seen = Event;',
  ].join('\n'),
  'ext-setup/manifest.ts': "export const MANIFEST_FILE = 'zot-extension.json';",
  'extensions/host.ts': [
    "import { MANIFEST_FILE } from '../ext-setup/manifest.js';",
    'export const manifestName = MANIFEST_FILE;',
  ].join('\n'),
  'tui/widget.ts': "import type { Event } from '../contract/events.js';\nexport type Row = Event;",
  'modes/print.ts': [
    "import type { Port } from '../contract/ports.js';",
    "import { ERROR_KINDS } from '../contract/errors.js';",
    'export const print = (port: Port) => [port, ERROR_KINDS];',
  ].join('\n'),
};

function runOn(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'zot-check-layers-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      const full = join(dir, 'packages/zot/src', path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text + '\n');
    }
    const run = spawnSync(process.execPath, [SCRIPT, '--root', dir], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The clean tree with `line` appended to `path` (as its last line, numbered `lineNumber`). */
function planted(path: string, line: string) {
  const text = CLEAN[path] ?? '';
  return {
    files: { ...CLEAN, [path]: text === '' ? line : `${text}\n${line}` },
    lineNumber: text === '' ? 1 : text.split('\n').length + 1,
  };
}

test('check-layers: the clean fixture passes', () => {
  const run = runOn(CLEAN);
  assert.equal(run.status, 0, run.output);
  assert.match(run.output, /check-layers: ok/);
});

const REFUSED: Array<{ name: string; path: string; line: string; rule: string; says: RegExp }> = [
  {
    name: 'a runtime TypeBox import in session',
    path: 'session/session.ts',
    line: "import { Type } from '@sinclair/typebox';",
    rule: 'type-only',
    says: /loads TypeBox/,
  },
  {
    name: 'a value import of a schema module',
    path: 'session/session.ts',
    line: "import { EventSchema } from '../contract/events.js';",
    rule: 'type-only',
    says: /schema module \.\.\/contract\/events\.js/,
  },
  {
    name: 'inline type specifiers (verbatimModuleSyntax keeps the import)',
    path: 'session/session.ts',
    line: "import { type Event as E2 } from '../contract/events.js';",
    rule: 'type-only',
    says: /use `import type`/,
  },
  {
    name: 'a re-export of a schema module',
    path: 'session/session.ts',
    line: "export { EventSchema } from '../contract/events.js';",
    rule: 'type-only',
    says: /schema module/,
  },
  {
    name: 'a dynamic import of a schema module',
    path: 'session/session.ts',
    line: "export const late = () => import('../contract/events.js');",
    rule: 'type-only',
    says: /schema module/,
  },
  {
    name: 'a schema module reached through another contract module',
    path: 'session/session.ts',
    line: "import '../contract/ports-schema.js';",
    rule: 'type-only',
    says: /ports-schema/,
  },
  {
    name: 'a widget loading a light contract module (tui -> contract is type-only)',
    path: 'tui/widget.ts',
    line: "import { ERROR_KINDS } from '../contract/errors.js';",
    rule: 'type-only',
    says: /layer tui may import contract with `import type` only/,
  },
  {
    name: 'a mode importing the session runtime (modes see contract/ only)',
    path: 'modes/print.ts',
    line: "import type { Seen } from '../session/session.js';",
    rule: 'layers',
    says: /layer modes must not import session/,
  },
  {
    name: 'a mode loading the session runtime at run time',
    path: 'modes/print.ts',
    line: "import { kinds } from '../session/session.js';",
    rule: 'layers',
    says: /layer modes must not import session \(\.\.\/session\/session\.js\)/,
  },
  {
    name: 'install and trust loading the running extensions',
    path: 'ext-setup/manifest.ts',
    line: "import { manifestName } from '../extensions/host.js';",
    rule: 'layers',
    says: /layer ext-setup must not import extensions \(\.\.\/extensions\/host\.js\)/,
  },
  {
    name: 'install and trust naming a running extension type',
    path: 'ext-setup/manifest.ts',
    line: "import type { manifestName } from '../extensions/host.js';",
    rule: 'layers',
    says: /layer ext-setup must not import extensions/,
  },
  {
    name: 'a lower layer importing a mode',
    path: 'session/session.ts',
    line: "import type { print } from '../modes/print.js';",
    rule: 'layers',
    says: /layer session must not import modes/,
  },
];

for (const { name, path, line, rule, says } of REFUSED) {
  test(`check-layers refuses ${name}`, () => {
    const { files, lineNumber } = planted(path, line);
    if (path === 'session/session.ts' && line.includes('ports-schema'))
      files['contract/ports-schema.ts'] = "export { EventSchema } from './events.js';";
    const run = runOn(files);
    assert.equal(run.status, 1, run.output);
    const where = `packages/zot/src/${path}:${lineNumber}: [${rule}]`;
    const reported = run.output.split('\n').filter((row) => row.startsWith(where));
    assert.equal(reported.length, 1, `expected one report at ${where}:\n${run.output}`);
    assert.match(reported[0]!, says);
    assert.match(run.output, /check-layers: 1 violation\(s\)/);
  });
}

test('check-layers accepts type-only forms across the same layers', () => {
  const { files } = planted(
    'session/session.ts',
    [
      "import type { EventSchema } from '../contract/events.js';",
      "export type { Event as E3 } from '../contract/events.js';",
      "export type Later = import('../contract/events.js').Event;",
      'export type Schema = typeof EventSchema;',
    ].join('\n'),
  );
  const run = runOn(files);
  assert.equal(run.status, 0, run.output);
});
