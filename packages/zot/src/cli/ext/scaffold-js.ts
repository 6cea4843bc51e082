// The program `zot ext new` writes for --lang node and --lang ts, and the copy of the TypeScript
// SDK that --lang ts vendors. test/ext-cli.test.ts checks that
// `tsCompiled` is exactly what tsc emits for `tsProgram`, and that all three pass `zot ext doctor`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedTypeScriptSdk } from '../../config/shipped.js';

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

/** `src/index.ts` of --lang ts: the extension on @zot/sdk. */
export function tsProgram(name: string, tool: string): string {
  return `// ${name}: a zot extension on @zot/sdk, the TypeScript SDK (vendored in vendor/zot-sdk,
// so nothing is fetched from a registry). stdout belongs to the protocol: console.log and
// ext.log write to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.
import { createExtension, display, text } from '@zot/sdk';

const ext = createExtension({ name: '${name}', version: '0.1.0' });

// The user typed /${name} [args]; display() shows text without calling the model.
ext.command('${name}', 'say hello (${name})', (args) =>
  display(args === '' ? 'hello from ${name}' : 'hello from ${name}: ' + args),
);

// The model can call this tool; \`who\` is typed from the schema (a required string).
ext.tool(
  '${tool}',
  'Greets someone by name.',
  {
    type: 'object',
    properties: { who: { type: 'string', description: 'who to greet' } },
    required: ['who'],
  },
  ({ who }) => text('Hello, ' + who + '!'),
);

// Says hello, waits for zot's hello_ack, registers the above, says ready, then answers.
await ext.run();
`;
}

/** `dist/index.js` of --lang ts: exactly what `tsc -p .` emits for `tsProgram`. */
export function tsCompiled(name: string, tool: string): string {
  return `// ${name}: a zot extension on @zot/sdk, the TypeScript SDK (vendored in vendor/zot-sdk,
// so nothing is fetched from a registry). stdout belongs to the protocol: console.log and
// ext.log write to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.
import { createExtension, display, text } from '@zot/sdk';
const ext = createExtension({ name: '${name}', version: '0.1.0' });
// The user typed /${name} [args]; display() shows text without calling the model.
ext.command('${name}', 'say hello (${name})', (args) => display(args === '' ? 'hello from ${name}' : 'hello from ${name}: ' + args));
// The model can call this tool; \`who\` is typed from the schema (a required string).
ext.tool('${tool}', 'Greets someone by name.', {
    type: 'object',
    properties: { who: { type: 'string', description: 'who to greet' } },
    required: ['who'],
}, ({ who }) => text('Hello, ' + who + '!'));
// Says hello, waits for zot's hello_ack, registers the above, says ready, then answers.
await ext.run();
`;
}

/** A file of the vendored SDK, relative to the package root. */
export interface SdkFile {
  path: string;
  content: string;
}

/**
 * The packed @zot/sdk (what `npm pack ./packages/sdk` ships: package.json and dist/pack) from
 * the zot installation this runs from (config/shipped.ts). Contract: throws an Error naming
 * what to do when the SDK is not built.
 */
export function sdkFiles(): SdkFile[] {
  const sdk = shippedTypeScriptSdk();
  if (!sdk.ok) throw new Error(`the TypeScript SDK is not available: ${sdk.error}`);
  return packed(sdk.path);
}

function packed(sdk: string): SdkFile[] {
  const pkg = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  // What an installed tarball's package.json says (no scripts: nothing to run on install).
  const fields = [
    'name',
    'version',
    'description',
    'license',
    'type',
    'engines',
    'main',
    'types',
    'exports',
  ];
  const manifest = Object.fromEntries(fields.filter((f) => f in pkg).map((f) => [f, pkg[f]]));
  const files: SdkFile[] = [
    { path: 'package.json', content: JSON.stringify(manifest, null, 2) + '\n' },
  ];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(sdk, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push({ path, content: readFileSync(join(sdk, path), 'utf8') });
    }
  };
  walk('dist/pack');
  if (existsSync(join(sdk, 'README.md'))) {
    files.push({ path: 'README.md', content: readFileSync(join(sdk, 'README.md'), 'utf8') });
  }
  return files;
}
