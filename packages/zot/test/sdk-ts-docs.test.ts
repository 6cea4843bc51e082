// docs/sdk-typescript.md's TypeScript: every block type-checks against the SDK and runs (an
// extension under a scripted host, or a standalone test). The page's shell blocks run as a
// reader would in docs-run.test.ts.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeFromExtension } from '@zot/protocol';
import ts from 'typescript';
import { docBlocks, REPO as ROOT } from './support/doc-runner.js';
import { makeSandbox } from './support/zot.js';
import { hangGuard } from './support/timing.js';

const DOC = join(ROOT, 'docs', 'sdk-typescript.md');

const doc = docBlocks(readFileSync(DOC, 'utf8'));
const tsBlocks = doc.filter((b) => b.lang === 'ts');

/** Arguments that satisfy a tool schema: the first enum value, 'Ada', 2, true, [] and {}. */
function sampleArgs(schema: Record<string, any>): unknown {
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  switch (schema['type']) {
    case 'string':
      return 'Ada';
    case 'number':
    case 'integer':
      return 2;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = (schema['properties'] ?? {}) as Record<string, Record<string, any>>;
      for (const key of (schema['required'] ?? []) as string[]) {
        out[key] = sampleArgs(properties[key] ?? {});
      }
      return out;
    }
    default:
      return null;
  }
}

/** Plays zot for one snippet extension: every command, tool, event and intercept once. */
async function drive(file: string, cwd: string): Promise<string[]> {
  const child = spawn(process.execPath, [file], { cwd, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const frames: Array<Record<string, any>> = [];
  const problems: string[] = [];
  let buffer = '';
  let wake: () => void = () => undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.includes('"type":"open_panel"')) frames.push(JSON.parse(line));
      else {
        const decoded = decodeFromExtension(line);
        if (decoded.ok) frames.push(decoded.frame);
        else problems.push(`invalid frame ${line}: ${decoded.error}`);
      }
    }
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = async (pred: () => boolean, what: string) => {
    const deadline = Date.now() + hangGuard(10_000);
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`${file}: no ${what}; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  const send = (frame: object) => child.stdin.write(JSON.stringify(frame) + '\n');
  send({ type: 'hello_ack', protocol_version: 1, cwd, data_dir: cwd, extension_dir: cwd });
  await until(() => frames.some((f) => f['type'] === 'ready'), 'ready');
  assert.equal(frames[0]?.['type'], 'hello', 'hello first');
  let id = 0;
  const requests: object[] = [];
  for (const f of frames) {
    if (f['type'] === 'register_command') {
      requests.push({ type: 'command_invoked', id: `c${++id}`, name: f['name'], args: 'Ada' });
    }
    if (f['type'] === 'register_tool') {
      const args = sampleArgs(f['schema'] ?? {});
      requests.push({ type: 'tool_call', id: `t${++id}`, name: f['name'], args });
    }
    if (f['type'] === 'subscribe') {
      for (const event of f['events'] ?? []) send({ type: 'event', event });
      for (const event of f['intercept'] ?? []) {
        const fields =
          event === 'tool_call'
            ? { tool_id: 'x', tool_name: 'bash', tool_args: { command: 'git push --force x' } }
            : event === 'turn_start'
              ? { step: 1 }
              : { text: 'key sk-abcdefghijklmnopqrstu' };
        requests.push({ type: 'event_intercept', id: `i${++id}`, event, ...fields });
      }
    }
  }
  for (const request of requests) send(request);
  send({ type: 'panel_key', panel_id: 'picker', key: 'down' });
  const answered = (rid: string) => frames.some((f) => f['id'] === rid);
  for (const request of requests as Array<{ id: string }>) {
    await until(() => answered(request.id), `reply to ${request.id}`);
  }
  send({ type: 'shutdown' });
  await until(() => frames.some((f) => f['type'] === 'shutdown_ack'), 'shutdown_ack');
  assert.equal(await exited, 0, stderr);
  assert.deepEqual(problems, []);
  return frames.map((f) => JSON.stringify(f));
}

test('every TypeScript block of docs/sdk-typescript.md type-checks and runs', async () => {
  assert.ok(tsBlocks.length >= 8, `found ${tsBlocks.length} blocks`);
  const box = makeSandbox();
  try {
    const dir = box.project;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    mkdirSync(join(dir, 'node_modules', '@zot'), { recursive: true });
    symlinkSync(join(ROOT, 'packages', 'sdk'), join(dir, 'node_modules', '@zot', 'sdk'));
    const files = tsBlocks.map((block, i) => {
      const file = join(dir, `snippet-${i}-line-${block.line}.ts`);
      writeFileSync(file, block.code);
      return file;
    });
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      outDir: join(dir, 'out'),
      rootDir: dir,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? d.file.fileName.slice(dir.length + 1) : '';
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(diagnostics, []);
    program.emit();
    for (const [i, block] of tsBlocks.entries()) {
      const js = join(dir, 'out', `snippet-${i}-line-${block.line}.js`);
      if (block.code.startsWith('// not an extension')) {
        const run = spawnSync(process.execPath, [js], { cwd: dir, encoding: 'utf8' });
        assert.equal(run.status, 0, `block at line ${block.line}: ${run.stderr}`);
        continue;
      }
      const frames = await drive(js, dir);
      assert.ok(frames.length > 3, `block at line ${block.line} registered something`);
    }
  } finally {
    box.cleanup();
  }
});
