// Fuzz target for the permission rules' bash reader and matcher: random command lines built from
// shell tokens (operators, quotes, expansions, substitutions, here-documents, keywords, nesting)
// must never make the analysis or a decision throw, and a parsed command must keep its shape.
import { RuleEngine } from '../../src/security/rules/engine.js';
import { parseRule } from '../../src/security/rules/parse.js';
import { analyzeCommand } from '../../src/security/shell/analyze.js';
import { loadShellParser, type ShellParser } from '../../src/security/shell/parser.js';
import type { Rng } from './prng.js';

const TOKENS = [
  'rm',
  'git',
  'status',
  '-rf',
  'x',
  '~/.bashrc',
  '/etc/passwd',
  '*',
  '?',
  '{a,b}',
  '\\;',
  ';',
  '&&',
  '||',
  '|',
  '&',
  '(',
  ')',
  '{',
  '}',
  '$(',
  '`',
  '<(',
  '>(',
  '>',
  '>>',
  '>|',
  '&>',
  '<',
  '<<EOF\nbody $(rm y)\nEOF\n',
  "<<'E'\n$(x)\nE\n",
  '<<<',
  '2>&1',
  "'q u'",
  '"d $x"',
  '$x',
  '${x:-$(rm z)}',
  '${a[$i]}',
  '${x@P}',
  '$((1+x))',
  '[[',
  ']]',
  '((',
  '))',
  'if',
  'then',
  'else',
  'fi',
  'for',
  'in',
  'do',
  'done',
  'case',
  'esac',
  ')',
  ';;',
  'eval',
  'bash',
  '-c',
  'sudo',
  'xargs',
  'find',
  '-exec',
  'PATH=.',
  'a=1',
  'function',
  'f()',
  '\n',
  '#c',
  '\\',
  "$'\\x72m'",
  'cd',
  '..',
];

let parser: ShellParser | undefined;
const engine = () => {
  const root = '/fuzz/project';
  const rules = [
    parseRule('bash(rm *)', 'deny', 'cli', { root }),
    parseRule('bash(git status)', 'allow', 'cli', { root }),
    parseRule('write(~/**)', 'deny', 'cli', { root }),
  ];
  return new RuleEngine(rules, { cwd: root, home: '/fuzz/home' });
};

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`contract broken: ${message}`);
}

export const shell = {
  name: 'shell',
  async setup() {
    parser = await loadShellParser();
  },
  generate(rng: Rng): string {
    const parts: string[] = [];
    for (let n = rng.size(40); n >= 0; n--) parts.push(rng.pick(TOKENS));
    // sometimes deep: the same opener many times
    if (rng.chance(0.05)) parts.push(rng.pick(['$(', '(', '{ ', '`']).repeat(rng.size(3000)));
    return parts.join(rng.chance(0.8) ? ' ' : '');
  },
  check(text: string) {
    const analysis = analyzeCommand(parser!, text);
    if (analysis.ok) {
      for (const command of analysis.commands) {
        assert(Array.isArray(command.words), 'a command has words');
        assert(command.nameIndex >= 0, 'the name index is not negative');
      }
      const verdict = engine().judgeCommands(analysis, false);
      assert(['allow', 'ask', 'deny', 'default'].includes(verdict.decision), 'a known decision');
    } else assert(typeof analysis.reason === 'string', 'a failure says why');
  },
  show: (text: string) => JSON.stringify(text),
};
