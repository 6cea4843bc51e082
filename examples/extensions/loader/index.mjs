// loader: deferred tools, on @zot/sdk. The toolbox tools are registered deferred (zot knows
// them, the model is not offered them); toolbox_load, the one tool offered from the start,
// activates those the model asks for, so a large toolbox costs no prompt space until needed.
import { createHash, randomUUID } from 'node:crypto';
import { createExtension, text, toolError } from '@zot/sdk';

const ext = createExtension({ name: 'loader', version: '1.0.0' });

const withText = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

/** The toolbox: name -> [description, schema, handler]. */
const TOOLBOX = {
  sha256: [
    'SHA-256 of a text, in hex.',
    withText,
    ({ text: input }) => text(createHash('sha256').update(input).digest('hex')),
  ],
  base64: [
    'Base64 of a text (decode: true decodes instead).',
    {
      type: 'object',
      properties: { text: { type: 'string' }, decode: { type: 'boolean' } },
      required: ['text'],
    },
    ({ text: input, decode }) =>
      text(Buffer.from(input, decode ? 'base64' : 'utf8').toString(decode ? 'utf8' : 'base64')),
  ],
  uuid: ['A fresh random UUID.', { type: 'object', properties: {} }, () => text(randomUUID())],
  json_pretty: [
    'Pretty-prints a JSON document.',
    withText,
    ({ text: input }) => {
      try {
        return text(JSON.stringify(JSON.parse(input), null, 2));
      } catch (err) {
        return toolError(`not JSON: ${err.message}`);
      }
    },
  ],
};

for (const [name, [description, schema, handler]] of Object.entries(TOOLBOX)) {
  ext.tool(name, description, schema, handler, { deferred: true });
}

const names = Object.keys(TOOLBOX);
const catalogue = names.map((name) => `${name} (${TOOLBOX[name][0]})`).join(', ');

ext.tool(
  'toolbox_load',
  `Makes toolbox tools available from the next step on. The toolbox: ${catalogue}.`,
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
