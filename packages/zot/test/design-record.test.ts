// docs/design.md is the one record of the host's decisions: every citation of it ("design D12",
// or a link to one of its headings) names a decision that is there, nothing cites the planning
// document it replaced, and the published schemas cite nothing at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const DESIGN = 'docs/design.md';
/** Far beyond any source or doc file; bigger tracked files are data, not prose. */
const MAX_BYTES = 4 * 1024 * 1024;

/** The repository's tracked files; without git, every file outside build output. */
function repositoryFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (git.status === 0) return git.stdout.split('\0').filter((path) => path !== '');
  const skip = new Set(['.git', 'node_modules', 'dist', 'test-results', '__pycache__']);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      if (skip.has(entry.name)) return [];
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.isFile() ? [relative(ROOT, full)] : [];
    });
  return walk(ROOT);
}

/** Text files with their lines (binary and oversized files left out). */
function textFiles(): Array<{ path: string; lines: string[] }> {
  const out: Array<{ path: string; lines: string[] }> = [];
  for (const path of repositoryFiles()) {
    const full = join(ROOT, path);
    let text: string;
    try {
      if (!statSync(full).isFile() || statSync(full).size > MAX_BYTES) continue;
      text = readFileSync(full, 'utf8');
    } catch {
      continue; // listed by git but deleted in the working tree
    }
    if (text.includes('\u0000')) continue;
    out.push({ path, lines: text.split('\n') });
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function decisions(): { numbers: Set<number>; anchors: Set<string>; historyStart: number } {
  const lines = readFileSync(join(ROOT, DESIGN), 'utf8').split('\n');
  const numbers = new Set<number>();
  const anchors = new Set<string>();
  let historyStart = lines.length;
  lines.forEach((line, index) => {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (!heading) return;
    anchors.add(anchorOf(heading[1]!));
    const decision = /^### D(\d+)\. /.exec(line);
    if (decision) {
      const number = Number(decision[1]);
      assert.ok(!numbers.has(number), `${DESIGN}:${index + 1}: D${number} appears twice`);
      numbers.add(number);
    }
    if (line === '## History') historyStart = index;
  });
  return { numbers, anchors, historyStart };
}

const files = textFiles();
const record = decisions();

test('the design record numbers its decisions D1, D2, ... without gaps', () => {
  const sorted = [...record.numbers].sort((a, b) => a - b);
  assert.ok(sorted.length >= 25, `${DESIGN} has only ${sorted.length} decisions`);
  assert.deepEqual(
    sorted,
    sorted.map((_, i) => i + 1),
  );
});

test('nothing cites the planning document the design record replaced', () => {
  const found: string[] = [];
  for (const { path, lines } of files) {
    lines.forEach((line, index) => {
      // `CONFIRM_DECISIONS` and the like are names, not citations: a whole word only.
      if (!/\bDECISIONS\b/.test(line)) return;
      if (path === DESIGN && index > record.historyStart) return;
      found.push(`${path}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], `cite docs/design.md instead ("design D12"):\n${found.join('\n')}`);
});

test('every citation of the design record names a decision it has', () => {
  const broken: string[] = [];
  for (const { path, lines } of files) {
    lines.forEach((line, index) => {
      const where = `${path}:${index + 1}`;
      for (const match of line.matchAll(/\b[Dd]esign (D\d+(?:(?:, | and )D\d+)*)/g)) {
        for (const number of match[1]!.match(/\d+/g)!) {
          if (!record.numbers.has(Number(number))) broken.push(`${where}: no decision D${number}`);
        }
      }
      for (const match of line.matchAll(/design\.md#([\w-]+)/g)) {
        if (!record.anchors.has(match[1]!)) broken.push(`${where}: no heading #${match[1]}`);
      }
    });
  }
  assert.deepEqual(broken, [], broken.join('\n'));
});

test('the published schemas cite no design record', () => {
  const schemas = files.filter(({ path }) => /^schema\/.*\.json$/.test(path));
  assert.ok(schemas.length >= 2, 'schema/*.json not found');
  for (const { path, lines } of schemas) {
    const text = lines.join('\n');
    assert.doesNotMatch(text, /\b[Dd]esign D\d|design\.md|\bDECISIONS\b/, path);
  }
});
