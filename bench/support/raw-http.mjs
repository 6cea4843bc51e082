// Baseline child for the startup suite's `zot -p` rows: the same Anthropic Messages request
// zot sends, made with node:http, the stream read to its end, the text deltas printed, exit.
// Usage: node raw-http.mjs <url>; the request body (JSON) comes in BENCH_BODY.
import { request } from 'node:http';

const body = process.env.BENCH_BODY ?? '';
const req = request(process.argv[2], {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    'x-api-key': 'k',
    'content-length': Buffer.byteLength(body),
  },
});
req.on('response', (response) => {
  let text = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (text += chunk));
  response.on('end', () => {
    let out = '';
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const event = JSON.parse(line.slice(6));
      if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
        out += event.delta.text;
      }
    }
    process.stdout.write(out + '\n');
  });
});
req.end(body);
