// The program `zot ext new` writes for --lang node and --lang ts. test/ext-cli.test.ts checks that
// `tsCompiled` is exactly what tsc emits for `tsProgram`, and that all three pass `zot ext doctor`.

/** A valid tool name (letters, digits, _ and -) derived from an extension name. */
export function toolNameFor(name: string): string {
  return `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 58)}_greet`;
}

/** `index.mjs` of --lang node: plain ESM, Node built-ins only. */
export function nodeProgram(name: string, tool: string): string {
  return String.raw`// ${name}: a zot extension using only Node built-ins (no SDK, no dependencies).
// It speaks the zot extension protocol: one JSON object per line on stdin and stdout.
// Diagnostics go to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.

const NAME = '${name}';
const TOOL = '${tool}';

function send(frame, then) {
  process.stdout.write(JSON.stringify(frame) + '\n', then);
}

function handle(frame) {
  switch (frame.type) {
    case 'hello_ack':
      // Register everything, then say "ready" so zot stops waiting for registrations.
      send({ type: 'register_command', name: NAME, description: 'say hello (' + NAME + ')' });
      send({
        type: 'register_tool',
        name: TOOL,
        description: 'Greets someone by name.',
        schema: {
          type: 'object',
          properties: { name: { type: 'string', description: 'who to greet' } },
          required: ['name'],
        },
      });
      send({ type: 'ready' });
      break;
    case 'command_invoked': {
      // The user typed /${name} [args]; "display" shows text without calling the model.
      const args = typeof frame.args === 'string' ? frame.args.trim() : '';
      const text = args === '' ? 'hello from ' + NAME : 'hello from ' + NAME + ': ' + args;
      send({ type: 'command_response', id: frame.id, action: 'display', display: text });
      break;
    }
    case 'tool_call': {
      // The model called the tool; args follow the schema registered above.
      const args = frame.args ?? {};
      const who = typeof args.name === 'string' ? args.name : 'stranger';
      const content = [{ type: 'text', text: 'Hello, ' + who + '!' }];
      send({ type: 'tool_result', id: frame.id, content });
      break;
    }
    case 'shutdown':
      send({ type: 'shutdown_ack' }, () => process.exit(0));
      break;
    default:
      // Events, intercepts and panel keys are not used here; unknown frames are ignored.
      break;
  }
}

// Lines are split on LF only: JSON strings may contain U+2028, which readline would split on.
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end).replace(/\r$/, '');
    pending = pending.slice(end + 1);
    if (line.trim() === '') continue;
    try {
      handle(JSON.parse(line));
    } catch (error) {
      console.error(NAME + ': ignored a bad line: ' + String(error));
    }
  }
});
process.stdin.on('end', () => process.exit(0));

send({ type: 'hello', name: NAME, version: '0.1.0', capabilities: ['commands', 'tools'] });
`;
}

/** `src/index.ts` of --lang ts. */
export function tsProgram(name: string, tool: string): string {
  return String.raw`// ${name}: a zot extension using only Node built-ins (no SDK, no dependencies).
// It speaks the zot extension protocol: one JSON object per line on stdin and stdout.
// Diagnostics go to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.

type Frame = { type: string; [field: string]: unknown };

const NAME = '${name}';
const TOOL = '${tool}';

function send(frame: Frame, then?: () => void): void {
  process.stdout.write(JSON.stringify(frame) + '\n', then);
}

function handle(frame: Frame): void {
  switch (frame.type) {
    case 'hello_ack':
      // Register everything, then say "ready" so zot stops waiting for registrations.
      send({ type: 'register_command', name: NAME, description: 'say hello (' + NAME + ')' });
      send({
        type: 'register_tool',
        name: TOOL,
        description: 'Greets someone by name.',
        schema: {
          type: 'object',
          properties: { name: { type: 'string', description: 'who to greet' } },
          required: ['name'],
        },
      });
      send({ type: 'ready' });
      break;
    case 'command_invoked': {
      // The user typed /${name} [args]; "display" shows text without calling the model.
      const args = typeof frame.args === 'string' ? frame.args.trim() : '';
      const text = args === '' ? 'hello from ' + NAME : 'hello from ' + NAME + ': ' + args;
      send({ type: 'command_response', id: frame.id, action: 'display', display: text });
      break;
    }
    case 'tool_call': {
      // The model called the tool; args follow the schema registered above.
      const args = (frame.args ?? {}) as { name?: unknown };
      const who = typeof args.name === 'string' ? args.name : 'stranger';
      const content = [{ type: 'text', text: 'Hello, ' + who + '!' }];
      send({ type: 'tool_result', id: frame.id, content });
      break;
    }
    case 'shutdown':
      send({ type: 'shutdown_ack' }, () => process.exit(0));
      break;
    default:
      // Events, intercepts and panel keys are not used here; unknown frames are ignored.
      break;
  }
}

// Lines are split on LF only: JSON strings may contain U+2028, which readline would split on.
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  pending += chunk;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end).replace(/\r$/, '');
    pending = pending.slice(end + 1);
    if (line.trim() === '') continue;
    try {
      handle(JSON.parse(line) as Frame);
    } catch (error) {
      console.error(NAME + ': ignored a bad line: ' + String(error));
    }
  }
});
process.stdin.on('end', () => process.exit(0));

send({ type: 'hello', name: NAME, version: '0.1.0', capabilities: ['commands', 'tools'] });
`;
}

/** `dist/index.js` of --lang ts: exactly what `tsc -p .` emits for `tsProgram`. */
export function tsCompiled(name: string, tool: string): string {
  return String.raw`// ${name}: a zot extension using only Node built-ins (no SDK, no dependencies).
// It speaks the zot extension protocol: one JSON object per line on stdin and stdout.
// Diagnostics go to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.
const NAME = '${name}';
const TOOL = '${tool}';
function send(frame, then) {
    process.stdout.write(JSON.stringify(frame) + '\n', then);
}
function handle(frame) {
    switch (frame.type) {
        case 'hello_ack':
            // Register everything, then say "ready" so zot stops waiting for registrations.
            send({ type: 'register_command', name: NAME, description: 'say hello (' + NAME + ')' });
            send({
                type: 'register_tool',
                name: TOOL,
                description: 'Greets someone by name.',
                schema: {
                    type: 'object',
                    properties: { name: { type: 'string', description: 'who to greet' } },
                    required: ['name'],
                },
            });
            send({ type: 'ready' });
            break;
        case 'command_invoked': {
            // The user typed /${name} [args]; "display" shows text without calling the model.
            const args = typeof frame.args === 'string' ? frame.args.trim() : '';
            const text = args === '' ? 'hello from ' + NAME : 'hello from ' + NAME + ': ' + args;
            send({ type: 'command_response', id: frame.id, action: 'display', display: text });
            break;
        }
        case 'tool_call': {
            // The model called the tool; args follow the schema registered above.
            const args = (frame.args ?? {});
            const who = typeof args.name === 'string' ? args.name : 'stranger';
            const content = [{ type: 'text', text: 'Hello, ' + who + '!' }];
            send({ type: 'tool_result', id: frame.id, content });
            break;
        }
        case 'shutdown':
            send({ type: 'shutdown_ack' }, () => process.exit(0));
            break;
        default:
            // Events, intercepts and panel keys are not used here; unknown frames are ignored.
            break;
    }
}
// Lines are split on LF only: JSON strings may contain U+2028, which readline would split on.
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
        const line = pending.slice(0, end).replace(/\r$/, '');
        pending = pending.slice(end + 1);
        if (line.trim() === '')
            continue;
        try {
            handle(JSON.parse(line));
        }
        catch (error) {
            console.error(NAME + ': ignored a bad line: ' + String(error));
        }
    }
});
process.stdin.on('end', () => process.exit(0));
send({ type: 'hello', name: NAME, version: '0.1.0', capabilities: ['commands', 'tools'] });
export {};
`;
}
