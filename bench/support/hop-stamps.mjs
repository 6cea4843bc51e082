// Preload (`node --import`) for bench/support/mcp-hops.mjs: stamps every socket write and every
// chunk a socket reads (pipes included) with process.hrtime, which is CLOCK_MONOTONIC and so
// comparable across processes, and writes the stamps to $HOP_STAMPS_DIR/<pid>.txt at exit.
// `globalThis.__hopStamp(label)` adds a stamp of the caller's own, and `globalThis.__hopStamps`
// holds this process's stamps so far (label, time, label, time...). Diagnostic only.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { Readable } from 'node:stream';

const stamps = [];
const stamp = (label) => stamps.push(label, process.hrtime.bigint());
globalThis.__hopStamp = stamp;
globalThis.__hopStamps = stamps;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (...args) {
  stamp(`w${this._handle?.fd ?? '?'}`);
  return write.apply(this, args);
};
net.Socket.prototype.push = function (chunk, encoding) {
  if (chunk) stamp(`r${this._handle?.fd ?? '?'}`);
  return Readable.prototype.push.call(this, chunk, encoding);
};
const dump = () => {
  const lines = [];
  for (let i = 0; i < stamps.length; i += 2) lines.push(`${stamps[i]} ${stamps[i + 1]}`);
  writeFileSync(`${process.env.HOP_STAMPS_DIR}/${process.pid}.txt`, lines.join('\n'));
};
process.on('exit', dump);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    dump();
    process.exit(0);
  });
}
