// Baseline child for the first-delta suite: a bare fetch POST of an Anthropic stream that prints
// one line when the first text delta arrives, then reads the stream to its end.
// Usage: node raw-anthropic.mjs <url>; the request body (JSON) comes in BENCH_BODY.
const url = process.argv[2];
const response = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    'x-api-key': 'k',
  },
  body: process.env.BENCH_BODY,
});
const decoder = new TextDecoder();
let buffer = '';
let seen = false;
for await (const chunk of response.body) {
  if (seen) continue;
  buffer += decoder.decode(chunk, { stream: true });
  for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
    const frame = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const data = frame.split('\n').find((line) => line.startsWith('data: '));
    if (!data) continue;
    const event = JSON.parse(data.slice(6));
    if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
      process.stdout.write(JSON.stringify({ type: 'text_delta', delta: event.delta.text }) + '\n');
      seen = true;
      break;
    }
  }
}
