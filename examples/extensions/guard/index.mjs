// guard: a zot extension that intercepts bash calls and assistant text (no SDK, no deps).
import { checkCommand, redact } from './rules.mjs';

const send = (frame) => process.stdout.write(JSON.stringify(frame) + '\n');

function handle(frame) {
  switch (frame.type) {
    case 'hello_ack':
      send({ type: 'subscribe', events: [], intercept: ['tool_call', 'assistant_message'] });
      send({ type: 'ready' });
      return;
    case 'event_intercept':
      return send({ type: 'event_intercept_response', id: frame.id, ...decide(frame) });
    case 'shutdown':
      send({ type: 'shutdown_ack' });
      process.exit(0);
  }
}

function decide(frame) {
  if (frame.event === 'tool_call' && frame.tool_name === 'bash') {
    const command = String(frame.tool_args?.command ?? '');
    const verdict = checkCommand(command);
    if (verdict.block) return { block: true, reason: verdict.reason };
    if (verdict.rewritten) {
      return {
        modified_args: { ...frame.tool_args, command: verdict.rewritten },
        reason: verdict.reason,
      };
    }
    return {};
  }
  if (frame.event === 'assistant_message') {
    const text = String(frame.text ?? '');
    const clean = redact(text);
    return clean === text
      ? {}
      : { replace_text: clean, reason: 'guard: redacted what looks like an API key' };
  }
  return {};
}

// Split stdin on LF only; a JSON string may legally contain U+2028.
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline).replace(/\r$/, '');
    buffer = buffer.slice(newline + 1);
    if (!line.trim()) continue;
    try {
      handle(JSON.parse(line));
    } catch (error) {
      process.stderr.write(`guard: ignoring a bad line: ${error.message}\n`);
    }
  }
});
process.stdin.on('end', () => process.exit(0));

send({ type: 'hello', name: 'guard', version: '1.0.0', capabilities: ['events'] });
