// The validation worker's thread (validation-pool.ts starts it): validates tool arguments with
// the same code as the event loop (validate.ts), one request at a time, keeping each schema it
// is sent compiled until told to forget it. A request that runs too long is not stopped here:
// the pool terminates the whole thread.
import { parentPort } from 'node:worker_threads';
import type { JsonSchema } from '../providers/types.js';
import { compileSchema } from './ajv-compile.js';
import { loadValidator, validateArgs } from './validate.js';
import type { ToValidationWorker } from './validation-pool.js';

const port = parentPort;
if (!port) throw new Error('validation-worker.js runs as a worker thread (validation-pool.ts)');
const schemas = new Map<number, JsonSchema>();

void loadValidator().then(() => {
  port.on('message', (message: ToValidationWorker) => {
    if (message.type === 'forget') {
      schemas.delete(message.key);
      return;
    }
    if (message.schema) schemas.set(message.key, message.schema);
    const schema = schemas.get(message.key);
    if (!schema) {
      const verdict = `internal: the validation worker was never sent the schema of tool "${message.tool}"`;
      port.postMessage({ type: 'verdict', id: message.id, verdict });
      return;
    }
    // Compiling a large schema can take seconds too: the pool's error says which step ran out.
    compileSchema(schema);
    port.postMessage({ type: 'compiled', id: message.id });
    const verdict = validateArgs(message.tool, schema, message.args);
    port.postMessage({ type: 'verdict', id: message.id, verdict: verdict ?? null });
  });
  port.postMessage({ type: 'ready' });
});
