// Permission rules: judging a 50-command pipeline against a 5,000-rule set, in process, on the
// compiled engine (packages/zot/dist/src/security). Three figures: matching alone (the parsed
// pipeline against the rules), parsing alone (tree-sitter's bash grammar, warm), and a whole
// `decide()` (parse + match, as a bash call pays it); plus what loading the parser once costs,
// in a fresh process.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, row, rounds, summarize } from '../lib/common.mjs';

const SRC = process.env.BENCH_ZOT_SRC ?? join(ROOT, 'packages/zot/dist/src');
const load = (path) => import(pathToFileURL(join(SRC, path)).href);
/** The target: matching a 50-command pipeline against 5,000 rules under 2 ms. */
const TARGET = { maxMs: 2 };
const RULES = 5000;
const COMMANDS = 50;

/** 5,000 rules of every kind; the pipeline's own commands each have a few among them. */
function ruleTexts() {
  const texts = [];
  for (let i = 0; texts.length < RULES; i++) {
    const kind = i % 10;
    if (kind < 6) texts.push(['allow', `bash(cmd${i % 400} --flag value${i % 400} *)`]);
    else if (kind === 6) texts.push(['deny', `bash(tool${i} sub${i} *)`]);
    else if (kind === 7) texts.push(['ask', `bash(*script${i}*)`]);
    else if (kind === 8) texts.push(['deny', `write(/srv/data${i}/**)`]);
    else texts.push(['allow', `mcp__server${i}__*`]);
  }
  return texts;
}

const pipeline = Array.from(
  { length: COMMANDS },
  (_, i) => `cmd${i} --flag value${i} "quoted arg" 'single' > out${i}.txt`,
).join(' | ');

/** Spawns a fresh Node that loads the parser and parses one command: the first bash call's cost. */
function coldLoadMs() {
  const script = `
    const t0 = performance.now();
    const { loadShellParser } = await import(${JSON.stringify(pathToFileURL(join(SRC, 'security/shell/parser.js')).href)});
    const parser = await loadShellParser();
    parser.parse('git status && rm -rf x', () => 0);
    process.stdout.write(String(performance.now() - t0));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cold load failed: ${result.stderr}`);
  return Number(result.stdout);
}

export async function run(options) {
  const { parseRule } = await load('security/rules/parse.js');
  const { RuleEngine } = await load('security/rules/engine.js');
  const { analyzeCommand } = await load('security/shell/analyze.js');
  const { loadShellParser } = await load('security/shell/parser.js');
  const root = '/srv/project';
  const rules = ruleTexts().map(([action, text]) => parseRule(text, action, 'user', { root }));
  const engine = new RuleEngine(rules, { cwd: root });
  const parser = await loadShellParser();
  const analysis = analyzeCommand(parser, pipeline);
  if (!analysis.ok || analysis.commands.length !== COMMANDS) {
    throw new Error(`the pipeline did not parse into ${COMMANDS} commands`);
  }
  const verdict = engine.judgeCommands(analysis, false);
  if (verdict.decision !== 'default') throw new Error(`unexpected verdict ${verdict.decision}`);
  const n = rounds(options, 400, 100);
  const time = (fn) => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };
  // Warm-up, then interleaved samples.
  for (let i = 0; i < 50; i++) {
    engine.judgeCommands(analysis, false);
    analyzeCommand(parser, pipeline);
  }
  const match = [];
  const parse = [];
  const decide = [];
  const words = [];
  for (let i = 0; i < n; i++) {
    match.push(time(() => engine.judgeCommands(analysis, false)));
    parse.push(time(() => analyzeCommand(parser, pipeline)));
    const start = performance.now();
    await engine.decide({ tool: 'bash', args: { command: pipeline } }, false);
    decide.push(performance.now() - start);
    // the least any matcher does: look each command's name up in a set
    const names = new Set(rules.map((rule) => rule.tool));
    words.push(time(() => analysis.commands.forEach((c) => names.has(c.words[0]?.value))));
  }
  const cold = [];
  for (let i = 0; i < Math.max(3, Math.round(n / 80)); i++) cold.push(coldLoadMs());
  const note =
    `${RULES} rules, a ${COMMANDS}-command pipeline with a redirection each ` +
    `(load average ${loadavg()[0].toFixed(1)} at the end)`;
  return {
    name: 'permissions',
    rows: [
      row(`rule matching: ${COMMANDS} commands vs ${RULES} rules`, words, match, TARGET, {
        note: `${note}; baseline: a Set lookup per command name`,
      }),
      {
        ...row(`bash parse of the ${COMMANDS}-command pipeline (warm)`, match, parse, TARGET),
        target: 'none (report)',
        pass: null,
      },
      {
        ...row('whole decide(): parse + match', parse, decide, TARGET),
        target: 'none (report)',
        pass: null,
      },
      {
        ...row('loading the parser in a fresh process (first bash call)', parse, cold, TARGET),
        target: 'none (report)',
        pass: null,
        note: `median ${summarize(cold).median.toFixed(1)} ms over ${cold.length} processes`,
      },
    ],
  };
}
