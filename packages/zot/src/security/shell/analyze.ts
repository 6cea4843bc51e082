// Reads a bash command line into what the permission rules judge: every simple command, wherever
// it sits (lists, pipelines, subshells, substitutions, here-documents, functions, loops), and
// every file a redirection writes or reads. Fails closed: a construct it does not know, a tree
// with errors, or a word it cannot read makes that part undecidable, never allowed.
import { classify, DIRECTORY_CHANGERS } from './commands.js';
import type { ShellNode, ShellParser } from './parser.js';
import { dynamic, textOf, wordOf, type Word } from './words.js';

export interface SimpleCommand {
  /** Prefix assignments, the name, the arguments (`A=1 git status` is three words). */
  words: Word[];
  /** Index of the command name in `words` (after the prefix assignments). */
  nameIndex: number;
  /** The command as written, for messages. */
  source: string;
  /** Why no allow rule can cover it (see commands.ts); deny and ask rules still apply. */
  undecidable?: string;
}

export interface PathAccess {
  kind: 'write' | 'read';
  path: Word;
  /** The redirection or argument as written. */
  source: string;
}

export type ShellAnalysis =
  | { ok: true; commands: SimpleCommand[]; accesses: PathAccess[]; changesDirectory: boolean }
  | { ok: false; reason: string };

/** Longer command lines are not parsed: they are asked about. */
export const MAX_COMMAND_CHARS = 100_000;
const MAX_NODES = 200_000;
const MAX_SCRIPT_DEPTH = 4;

/** Node types whose children are walked and that add nothing of their own. */
const STRUCTURE = new Set([
  'program',
  'list',
  'pipeline',
  'negated_command',
  'subshell',
  'compound_statement',
  'redirected_statement',
  'function_definition',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'do_group',
  'case_statement',
  'case_item',
  'command_substitution',
  'process_substitution',
  'command_name',
  'concatenation',
  'string',
  'string_content',
  'raw_string',
  'word',
  'number',
  'simple_expansion',
  'variable_name',
  'special_variable_name',
  'comment',
  'herestring_redirect',
  'heredoc_start',
  'heredoc_end',
  'heredoc_content',
  'extglob_pattern',
  'regex',
  'array',
  'ansi_c_string',
  'translated_string',
  'file_descriptor',
]);

// Arithmetic (`$((..))`, `((..))`, `[[ a -eq b ]]`, `${a[i]}`, `${a:i}`, `${!a}`) evaluates
// the values of the variables it names as expressions again, and an array subscript in such a
// value runs command substitutions: with any variable in it, it can run anything.
const ARITHMETIC_TEST = /^-(eq|ne|lt|le|gt|ge)$/;

/** Assignments that cannot steer another program (lower case, not npm's or a proxy). */
const QUIET_NAME = /^[a-z_][a-z0-9_]*$/;
const LOUD_LOWER = /^npm_config_|_proxy$/;

/** Parses and reads `source`. Contract: never throws. */
export function analyzeCommand(parser: ShellParser, source: string): ShellAnalysis {
  return analyzeScript(parser, source, 0);
}

function analyzeScript(parser: ShellParser, source: string, depth: number): ShellAnalysis {
  if (source.length > MAX_COMMAND_CHARS) {
    return { ok: false, reason: `the command is longer than ${MAX_COMMAND_CHARS} characters` };
  }
  const result = parser.parse(source, (root) => walk(root));
  if (!result) return { ok: false, reason: 'the parser gave up on it' };
  if (!result.ok) return result;
  for (const script of result.scripts) {
    if (depth >= MAX_SCRIPT_DEPTH) {
      result.commands.push({ words: [], nameIndex: 0, source: script, undecidable: 'too deep' });
      continue;
    }
    const inner = analyzeScript(parser, script, depth + 1);
    if (!inner.ok) {
      result.commands.push({ words: [], nameIndex: 0, source: script, undecidable: inner.reason });
      continue;
    }
    result.commands.push(...inner.commands);
    result.accesses.push(...inner.accesses);
    result.changesDirectory ||= inner.changesDirectory;
  }
  const { scripts: _scripts, ...analysis } = result;
  return analysis;
}

type Walked =
  | {
      ok: true;
      commands: SimpleCommand[];
      accesses: PathAccess[];
      changesDirectory: boolean;
      scripts: string[];
    }
  | { ok: false; reason: string };

function walk(root: ShellNode): Walked {
  const out = {
    ok: true as const,
    commands: [] as SimpleCommand[],
    accesses: [] as PathAccess[],
    changesDirectory: false,
    scripts: [] as string[],
  };
  const undecidable = (node: ShellNode, why: string) =>
    out.commands.push({ words: [], nameIndex: 0, source: node.text, undecidable: why });
  // Iterative, so a deeply nested command cannot overflow the stack.
  const stack: ShellNode[] = [root];
  let seen = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (++seen > MAX_NODES) return { ok: false, reason: 'the command is too large to check' };
    if (node.type === 'ERROR' || node.isMissing) {
      return { ok: false, reason: `it does not parse as bash (near "${clip(node.text)}")` };
    }
    for (let i = node.childCount - 1; i >= 0; i--) stack.push(node.child(i)!);
    if (!node.isNamed) continue;
    switch (node.type) {
      case 'command':
      case 'declaration_command':
      case 'unset_command': {
        const command = simpleCommand(node);
        const kind = classify(command.words, command.nameIndex);
        if (kind.undecidable) command.undecidable = kind.undecidable;
        out.scripts.push(...kind.scripts);
        if (DIRECTORY_CHANGERS.has(textOf(command.words[command.nameIndex]) ?? '')) {
          out.changesDirectory = true;
        }
        out.commands.push(command);
        const tee = teeTargets(command);
        out.accesses.push(...tee);
        break;
      }
      case 'variable_assignment':
        if (!insideCommand(node)) assignment(node, out.commands);
        break;
      case 'variable_assignments':
        break;
      case 'for_statement':
        loopVariable(node, out.commands);
        break;
      case 'c_style_for_statement':
      case 'arithmetic_expansion':
        if (mentionsVariable(node)) undecidable(node, 'arithmetic on variables can run code');
        break;
      case 'test_command':
        if (testRunsCode(node)) undecidable(node, 'arithmetic on variables can run code');
        break;
      case 'expansion':
        if (expansionRunsCode(node)) undecidable(node, 'this expansion evaluates arithmetic');
        break;
      case 'subscript':
      case 'binary_expression':
      case 'unary_expression':
      case 'postfix_expression':
      case 'parenthesized_expression':
      case 'ternary_expression':
      case 'test_operator':
        break; // judged with their arithmetic or test parent
      case 'file_redirect':
        redirect(node, out.accesses);
        break;
      case 'heredoc_redirect':
        if (!heredocIsQuoted(node) && heredocHidesCode(node)) {
          undecidable(node, 'the here-document expands text the parser left as plain');
        }
        break;
      case 'heredoc_body':
        break;
      default:
        if (!STRUCTURE.has(node.type)) undecidable(node, `unsupported shell syntax (${node.type})`);
    }
  }
  return out;
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}...` : text);

function simpleCommand(node: ShellNode): SimpleCommand {
  const words: Word[] = [];
  let nameIndex = -1;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    const field = node.fieldNameForChild(i);
    if (node.type !== 'command' && !child.isNamed) {
      // the keyword of `export`, `declare`, `unset`...
      if (words.length === 0) {
        nameIndex = 0;
        words.push({ kind: 'static', value: child.text });
      }
      continue;
    }
    if (!child.isNamed || child.type === 'file_redirect' || child.type === 'herestring_redirect')
      continue;
    if (field === 'name') {
      nameIndex = words.length;
      words.push(wordOf(child.child(0) ?? child));
    } else if (child.type === 'variable_assignment') {
      words.push(assignmentWord(child));
    } else {
      words.push(wordOf(child));
    }
  }
  return { words, nameIndex: nameIndex < 0 ? words.length : nameIndex, source: node.text };
}

function assignmentWord(node: ShellNode): Word {
  const name = node.child(0);
  const value = node.childCount > 2 ? node.child(2) : null;
  const operator = node.child(1)?.text ?? '=';
  if (!name || name.type !== 'variable_name') return dynamic(node);
  if (!value) return { kind: 'static', value: `${name.text}${operator}` };
  const word = wordOf(value);
  return word.kind === 'static'
    ? { kind: 'static', value: `${name.text}${operator}${word.value}` }
    : dynamic(node);
}

function insideCommand(node: ShellNode): boolean {
  const parent = parentType(node);
  return parent === 'command' || parent === 'declaration_command';
}

// tree-sitter nodes know their parent; the interface keeps to what the walk needs.
const parentType = (node: ShellNode): string | undefined =>
  (node as ShellNode & { parent?: ShellNode | null }).parent?.type;

/** A standalone `NAME=value`: a command of its own unless NAME is a quiet one. */
function assignment(node: ShellNode, commands: SimpleCommand[]): void {
  const name = node.child(0)?.text ?? '';
  if (QUIET_NAME.test(name) && !LOUD_LOWER.test(name)) return;
  commands.push({ words: [assignmentWord(node)], nameIndex: 1, source: node.text });
}

/** `for NAME in ...` assigns NAME, as `NAME=...` would. */
function loopVariable(node: ShellNode, commands: SimpleCommand[]): void {
  for (let i = 0; i < node.childCount; i++) {
    if (node.fieldNameForChild(i) !== 'variable') continue;
    const name = node.child(i)!.text;
    if (QUIET_NAME.test(name) && !LOUD_LOWER.test(name)) return;
    commands.push({
      words: [{ kind: 'dynamic', source: `${name}=...` }],
      nameIndex: 1,
      source: node.text,
      undecidable: `the loop assigns ${name}`,
    });
  }
}

function someNode(node: ShellNode, test: (node: ShellNode) => boolean): boolean {
  const stack = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (test(next)) return true;
    for (let i = 0; i < next.childCount; i++) stack.push(next.child(i)!);
  }
  return false;
}

const VARIABLE_TYPES = new Set([
  'variable_name',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'word',
  'subscript',
]);
const mentionsVariable = (node: ShellNode) =>
  someNode(node, (n) => n !== node && VARIABLE_TYPES.has(n.type));

/** `((..))` always, `[[..]]` with a numeric comparison or any expansion. */
function testRunsCode(node: ShellNode): boolean {
  if (node.text.startsWith('((')) return mentionsVariable(node);
  return someNode(
    node,
    (n) =>
      n.type === 'simple_expansion' ||
      n.type === 'expansion' ||
      (n.type === 'test_operator' && ARITHMETIC_TEST.test(n.text)),
  );
}

/** `${a[i]}`, `${a:i}`, `${!a}`, `${a@P}`: arithmetic, indirection, prompt expansion. */
function expansionRunsCode(node: ShellNode): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    if (child.type === 'subscript') return true;
    // `@P` expands the value as a prompt, which runs command substitutions in it
    const operator = node.fieldNameForChild(i) === 'operator';
    if (operator && (child.text === ':' || child.text === '!' || child.text === '@')) {
      return true;
    }
  }
  return false;
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const READ_OPS = new Set(['<', '<>']);

function redirect(node: ShellNode, accesses: PathAccess[]): void {
  let op = '';
  let destination: ShellNode | undefined;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    if (node.fieldNameForChild(i) === 'destination') destination = child;
    else if (!child.isNamed) op = child.text;
  }
  if (!destination) return;
  const path = wordOf(destination);
  // `>&file` and `<&file` with a word that is not a descriptor number (or -) name a file.
  const isFileDup =
    (op === '>&' || op === '<&') &&
    !/^(\d+|-)$/.test(textOf(path) ?? '') &&
    path.kind !== 'dynamic';
  const dynamicDup = (op === '>&' || op === '<&') && path.kind === 'dynamic';
  if (WRITE_OPS.has(op) || (op === '>&' && (isFileDup || dynamicDup))) {
    accesses.push({ kind: 'write', path, source: node.text });
  }
  if (READ_OPS.has(op) || (op === '<&' && (isFileDup || dynamicDup))) {
    accesses.push({ kind: 'read', path, source: node.text });
  }
}

/** A quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) keeps the body as written. */
function heredocIsQuoted(node: ShellNode): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    if (child.type === 'heredoc_start') return /['"\\]/.test(child.text);
  }
  return false;
}

/** Literal parts of an expanded body that still hold `$` or a backquote. */
function heredocHidesCode(node: ShellNode): boolean {
  return someNode(node, (n) => {
    if (n.type === 'heredoc_content') return /[$`]/.test(n.text);
    if (n.type === 'heredoc_body' && n.childCount === 0) return /[$`]/.test(n.text);
    return false;
  });
}

/** `tee FILE...` and `dd of=FILE` write where their words say. */
function teeTargets(command: SimpleCommand): PathAccess[] {
  const name = textOf(command.words[command.nameIndex]);
  const args = command.words.slice(command.nameIndex + 1);
  if (name === 'tee') {
    let options = true;
    return args.flatMap((word) => {
      const text = textOf(word);
      if (options && text === '--') {
        options = false;
        return [];
      }
      if (options && text?.startsWith('-') && text !== '-') return [];
      return [{ kind: 'write' as const, path: word, source: command.source }];
    });
  }
  if (name === 'dd') {
    return args.flatMap((word): PathAccess[] => {
      if (word.kind === 'dynamic') return [{ kind: 'write', path: word, source: command.source }];
      if (!word.value.startsWith('of=')) return [];
      const path: Word = { kind: 'static', value: word.value.slice(3) };
      return [{ kind: 'write', path, source: command.source }];
    });
  }
  return [];
}
