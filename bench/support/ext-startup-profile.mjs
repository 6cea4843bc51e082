// Diagnostic: where the time of one cold ExtensionHost.start() goes, in a fresh process.
//   node bench/support/ext-startup-profile.mjs [count] [node|python] [--warm-validator] [--no-profile]
// Prints the wall time of start() split at the first and the last spawn() call (what comes
// before the first spawn delays every extension), and a CPU profile of the start() window only
// (node:inspector): self time per file or package, then the hottest functions. With
// --warm-validator the argument validator (Ajv) is loaded before the clock starts, which shows
// what start() costs without it. --no-profile gives the timeline without profiler overhead.
import childProcess from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createHost,
  DIST_SRC,
  extensionEnv,
  makeTrivial,
  tempRoot,
  writeTrivialPrograms,
} from '../lib/ext.mjs';

const args = process.argv.slice(2);
const warm = args.includes('--warm-validator');
const profiling = !args.includes('--no-profile');
const [countText = '1', language = 'node'] = args.filter((arg) => !arg.startsWith('--'));
const count = Number(countText);

const root = tempRoot('ext-startup-profile');
const env = extensionEnv();
const programs = writeTrivialPrograms(root.dir);
const dirs = Array.from({ length: count }, (_, i) =>
  makeTrivial(root.dir, programs, language, `p-${language}-${i}`),
);
const validate = await import(pathToFileURL(join(DIST_SRC, 'agent', 'validate.js')).href);
if (warm) await validate.loadValidator();
const host = await createHost(root.dir, dirs, { env });

// Timestamps of spawn() calls: the host's `import { spawn }` sees the patched export.
const spawns = [];
const realSpawn = childProcess.spawn;
childProcess.spawn = function (...spawnArgs) {
  spawns.push(performance.now());
  return realSpawn.apply(this, spawnArgs);
};
syncBuiltinESMExports();

const session = new Session();
if (profiling) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const start = performance.now();
const reports = await host.start();
const end = performance.now();
const ms = end - start;
const profile = profiling ? (await session.post('Profiler.stop')).profile : undefined;
if (profiling) session.disconnect();
await host.shutdown();
root.cleanup();

const notReady = reports.filter((report) => report.status !== 'ready').length;
console.log(
  `start() of ${count} ${language} extension(s): ${ms.toFixed(1)} ms` +
    `${warm ? ' (validator loaded beforehand)' : ' (cold: includes loading the validator)'}` +
    `${notReady ? `; ${notReady} NOT READY` : ''}`,
);
if (spawns.length > 0) {
  const first = spawns[0] - start;
  const last = spawns[spawns.length - 1] - start;
  console.log(
    `  start() -> first spawn ${first.toFixed(1)} ms; -> last spawn ${last.toFixed(1)} ms; ` +
      `last spawn -> all ready ${(end - spawns[spawns.length - 1]).toFixed(1)} ms`,
  );
}
if (!profile) process.exit(0);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const byFile = new Map();
const byFunction = new Map();
const bucket = (url, fn) => {
  if (!url) return `(${fn || 'native'})`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/([^/]+).*/, 'node:internal/$1');
  return url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
};
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  const { url, functionName, lineNumber } = node.callFrame;
  const file = bucket(url, functionName);
  byFile.set(file, (byFile.get(file) ?? 0) + ms);
  const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
}
const show = (title, map, top) => {
  console.log(title);
  for (const [key, value] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${value.toFixed(1).padStart(8)} ms  ${key}`);
  }
};
show('self time by file or package (start() window):', byFile, 15);
show('hottest functions:', byFunction, 15);
process.exit(0);
