// Diagnostic: self time per file (or package) in a `node --cpu-prof` profile.
// Usage: node bench/support/cpu-profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

const [file, top = '30'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const deltas = profile.timeDeltas;
const self = new Map();
function bucket(url, fn) {
  if (!url) return fn === '(garbage collector)' ? '(gc)' : `(${fn || 'native'})`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return url.replace(/^node:internal\/([^/]+).*/, 'node:internal/$1');
  return url.replace(/^file:\/\//, '');
}
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const key = bucket(node.callFrame.url, node.callFrame.functionName);
  self.set(key, (self.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`total sampled ${total.toFixed(1)} ms`);
for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${ms.toFixed(1).padStart(7)} ms  ${key}`);
}
