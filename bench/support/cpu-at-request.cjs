// Preload for bench suites (node -r): writes this process's CPU time (user + system, ms) at the
// moment its first HTTP request is ended to the file named by BENCH_CPU_AT_REQUEST, so a suite can
// compare the CPU a run spends before its first model request. On a loaded machine that holds up
// better than wall time, which counts the time other processes had the cores. The path must stay
// the same for every run of a suite (zot keys what it remembers of an extension by its
// environment); the suite reads the file after each run.
const { writeFileSync } = require('node:fs');
const http = require('node:http');

const file = process.env.BENCH_CPU_AT_REQUEST;
const end = http.ClientRequest.prototype.end;
let written = false;
http.ClientRequest.prototype.end = function (...args) {
  if (!written && file) {
    written = true;
    const { user, system } = process.cpuUsage();
    writeFileSync(file, String((user + system) / 1000));
  }
  return end.apply(this, args);
};
