// Every line zot writes in JSON and RPC modes is checked against the committed
// schema/rpc.schema.json, so the schema cannot drift from what zot really sends.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SCHEMA_FILE = fileURLToPath(
  new URL('../../../../../schema/rpc.schema.json', import.meta.url),
);

let validators: { event: ValidateFunction; response: ValidateFunction } | undefined;

function load() {
  if (!validators) {
    const document = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { $id: string };
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addSchema(document);
    validators = {
      event: ajv.getSchema(`${document.$id}#/$defs/event`)!,
      response: ajv.getSchema(`${document.$id}#/$defs/response`)!,
    };
  }
  return validators;
}

/**
 * Throws, naming the line and the schema's complaint, when `line` is neither a response nor an
 * event of the RPC schema. Contract: returns the line unchanged when it conforms.
 */
export function checkOutputLine<T extends { type: string }>(line: T): T {
  const { event, response } = load();
  const validate = line.type === 'response' ? response : event;
  if (!validate(line)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    throw new Error(
      `zot wrote a line that schema/rpc.schema.json does not allow (${problems}): ${JSON.stringify(line).slice(0, 500)}`,
    );
  }
  return line;
}
