// Preload (`node --import`) that stamps the phases of a run on stderr at exit, in ms since the
// process's time origin: preload, fetch called, response headers, first text_delta written.
// Diagnostic only; used by bench/support/first-delta-phases.mjs.
const marks = { preload: performance.now() };
const realFetch = globalThis.fetch;
globalThis.fetch = async (...args) => {
  marks.fetchCalled ??= performance.now();
  const response = await realFetch(...args);
  marks.responseHeaders ??= performance.now();
  return response;
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (marks.firstDelta === undefined && String(chunk).includes('"type":"text_delta"')) {
    marks.firstDelta = performance.now();
  }
  return write(chunk, ...rest);
};
process.on('exit', () => {
  process.stderr.write(`BENCH_MARKS ${JSON.stringify(marks)}\n`);
});
