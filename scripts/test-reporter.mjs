// A compact node:test reporter: one line per test file as it finishes, each failure in full,
// and a summary. node:test reports a file's own completion as it happens but its tests in file
// order, later; so a file's line carries its time and verdict, and failures follow in full.
// The full TAP goes to a file beside it (see run-tests.mjs). ZOT_TEST_FILES (the number of
// files in the run) lets each line say how far the run is.
import { relative } from 'node:path';
import { inspect } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const totalFiles = Number(process.env.ZOT_TEST_FILES) || 0;
const colour = !process.env.NO_COLOR && process.stdout.isTTY;
const paint = (code, text) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);

function seconds(ms) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

const indent = (lines) => lines.map((line) => `      ${line}`).join('\n');

function describeError(error) {
  if (!error) return '';
  // A test file that ended by itself: its exit status is all node:test knows.
  if (error.exitCode != null || error.signal) {
    const how = error.signal ? `signal ${error.signal}` : `exit code ${error.exitCode}`;
    return indent([`the test file's process ended (${how})`]);
  }
  // node:test wraps the thrown value; the cause is what the test threw.
  const cause = error.cause ?? error;
  const text =
    cause instanceof Error ? (cause.stack ?? String(cause)) : inspect(cause, { depth: 4 });
  // Node's own frames say nothing about the test.
  const lines = text.split('\n').filter((line) => !/node:internal|node:async_hooks/.test(line));
  return indent(lines.slice(0, 40));
}

export default async function* compactReporter(source) {
  const started = performance.now();
  const counts = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0 };
  let filesDone = 0;
  let failedFiles = 0;
  // What each file wrote to stderr (its last lines), shown for a file that ended by itself.
  const stderrTails = new Map();
  const crashed = [];
  const fileOf = (data) => (data.file ? relative(root, data.file) : '(no file)');

  for await (const event of source) {
    const data = event.data ?? {};
    const isFileItself = data.file !== undefined && data.name === data.file;
    switch (event.type) {
      case 'test:pass':
      case 'test:fail': {
        if (isFileItself) break; // reported by its test:complete
        if (data.nesting === 0) {
          counts.tests++;
          if (data.skip) counts.skipped++;
          else if (data.todo) counts.todo++;
          else if (event.type === 'test:pass') counts.pass++;
          else counts.fail++;
        }
        // A parent whose subtests failed adds nothing to the subtest's own report.
        const error = data.details?.error;
        if (event.type === 'test:fail' && !data.todo && error?.failureType !== 'subtestsFailed') {
          yield `${paint(31, '  FAIL')} ${fileOf(data)} > ${data.name}\n${describeError(error)}\n`;
        }
        break;
      }
      case 'test:complete': {
        if (!isFileItself) break;
        filesDone++;
        const file = fileOf(data);
        const failed = data.details?.passed === false;
        if (failed) failedFiles++;
        // A file that failed by itself (it crashed, or timed out) says why here.
        const error = data.details?.error;
        const ownFailure = failed && error?.failureType !== 'subtestsFailed';
        if (ownFailure) crashed.push(file);
        const width = String(totalFiles).length;
        const progress = totalFiles
          ? `${String(filesDone).padStart(width)}/${totalFiles}`
          : `${filesDone}`;
        const mark = failed ? paint(31, 'FAIL') : paint(32, ' ok ');
        const took = seconds(data.details?.duration_ms ?? 0);
        yield `${mark} ${progress} ${file} (${took})${ownFailure ? `\n${describeError(error)}` : ''}\n`;
        break;
      }
      case 'test:stderr': {
        const file = fileOf(data);
        const tail = stderrTails.get(file) ?? [];
        tail.push(...String(data.message).split('\n').filter(Boolean));
        stderrTails.set(file, tail.slice(-30));
        break;
      }
      default:
        // test:diagnostic carries the runner's own closing counts: the summary below replaces them.
        break;
    }
  }

  for (const file of crashed) {
    const tail = stderrTails.get(file);
    if (tail?.length)
      yield `\n${paint(31, 'FAIL')} ${file}, its last lines on stderr:\n${indent(tail)}\n`;
  }
  const elapsed = performance.now() - started;
  yield '\n';
  yield `# tests ${counts.tests}\n# pass ${counts.pass}\n# fail ${counts.fail}\n`;
  if (counts.skipped) yield `# skipped ${counts.skipped}\n`;
  if (counts.todo) yield `# todo ${counts.todo}\n`;
  yield `# files ${filesDone}${failedFiles ? ` (${failedFiles} failed)` : ''}\n`;
  yield `# duration ${seconds(elapsed)}\n`;
}
