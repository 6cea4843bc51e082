// The trust dialog's text: what a project extension runs, may access and asks for anew.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reviewText } from './trust-dialog.js';
import type { TrustReview } from '../../contract/front-end.js';

const base: TrustReview = {
  name: 'demo',
  dir: '/p/.zot/extensions/demo',
  state: 'new',
  argv: ['/usr/bin/node', 'index.mjs'],
  files: 2,
  bytes: 2048,
  covered: [],
  hash: 'sha256:00',
  scoped: false,
  permissions: [],
  summary: [],
  widened: [],
};

test('an unscoped extension is marked as having your full rights', () => {
  assert.match(
    reviewText(base),
    /^access: UNSCOPED, your full rights \(no "permissions" block\)$/m,
  );
});

test('a scoped one shows its permissions; a changed one what it asks for beyond what was trusted', () => {
  const text = reviewText({
    ...base,
    state: 'changed',
    scoped: true,
    summary: ['read ${project}; write its data only', 'network any host; runs git; env basic only'],
    widened: ['network: any host', 'runs: git'],
  });
  assert.match(
    text,
    /^access: sandboxed, with only its permissions:\n {8}read \$\{project\}; write its data only\n {8}network any host; runs git; env basic only\nwider: {2}it asks for more than when you trusted it:\n {8}network: any host\n {8}runs: git$/m,
  );
});
