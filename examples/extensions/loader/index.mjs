// @ts-check
// loader: deferred tools, on @zot/sdk. The toolbox tools are registered deferred (zot knows
// them, the model is not offered them); toolbox_load, the one tool offered from the start,
// activates those the model asks for, so a large toolbox costs no prompt space until needed.
import { createHash, randomUUID } from 'node:crypto';
import { createExtension, text, toolError } from '@zot/sdk';

const ext = createExtension({ name: 'loader', version: '1.0.0' });
const deferred = { deferred: true };

/** The toolbox, by name: what toolbox_load's description lists. */
const TOOLBOX = {
  sha256: 'SHA-256 of a text, in hex',
  base64: 'Base64 of a text (decode: true decodes instead)',
  uuid: 'a fresh random UUID',
  json_pretty: 'pretty-prints a JSON document',
};

ext.tool(
  'sha256',
  TOOLBOX.sha256,
  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  (args) => text(createHash('sha256').update(args.text).digest('hex')),
  deferred,
);

ext.tool(
  'base64',
  TOOLBOX.base64,
  {
    type: 'object',
    properties: { text: { type: 'string' }, decode: { type: 'boolean' } },
    required: ['text'],
  },
  ({ text: input, decode }) =>
    text(Buffer.from(input, decode ? 'base64' : 'utf8').toString(decode ? 'utf8' : 'base64')),
  deferred,
);

ext.tool(
  'uuid',
  TOOLBOX.uuid,
  { type: 'object', properties: {} },
  () => text(randomUUID()),
  deferred,
);

ext.tool(
  'json_pretty',
  TOOLBOX.json_pretty,
  { type: 'object', properties: { json: { type: 'string' } }, required: ['json'] },
  ({ json }) => {
    try {
      return text(JSON.stringify(JSON.parse(json), null, 2));
    } catch (err) {
      return toolError(`not JSON: ${err instanceof Error ? err.message : err}`);
    }
  },
  deferred,
);

const names = Object.keys(TOOLBOX);
const catalogue = Object.entries(TOOLBOX).map(([name, what]) => `${name} (${what})`);

ext.tool(
  'toolbox_load',
  `Makes toolbox tools available from the next step on. The toolbox: ${catalogue.join(', ')}.`,
  {
    type: 'object',
    properties: { tools: { type: 'array', items: { type: 'string', enum: names } } },
    required: ['tools'],
  },
  ({ tools }) => {
    const known = tools.filter((name) => names.includes(name));
    if (known.length === 0) return toolError(`no such tools; the toolbox has ${names.join(', ')}`);
    ext.activateTools(known);
    return text(`loaded ${known.join(', ')}; call them next`);
  },
);

await ext.run();
