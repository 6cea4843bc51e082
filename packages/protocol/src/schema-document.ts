// The published JSON Schema (draft 2020-12) of the extension protocol, built from the same
// TypeBox definitions as the decoder's generated validators. scripts/gen-schema.mjs writes
// it to schema/extension-protocol.schema.json.
import type { TSchema } from '@sinclair/typebox';
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from './constants.js';
import { FRAME_SCHEMAS_FROM_EXTENSION } from './frames-extension.js';
import { FRAME_SCHEMAS_FROM_HOST } from './frames-host.js';

const refTo = (title: string) => ({ $ref: `#/$defs/${title}` });

// Plain JSON copy: drops TypeBox's symbol keys and detaches the document from the live
// schemas, so a caller mutating the document cannot corrupt the decoder.
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function titleOf(schema: TSchema): string {
  const title = schema['title'];
  if (typeof title !== 'string') throw new Error('frame schema without a title');
  return title;
}

function buildDocument(): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const direction = (schemas: Record<string, TSchema>): Array<{ $ref: string }> =>
    Object.values(schemas).map((schema) => {
      const title = titleOf(schema);
      defs[title] ??= plain(schema);
      return refTo(title);
    });
  const fromExtension = direction(FRAME_SCHEMAS_FROM_EXTENSION);
  const fromHost = direction(FRAME_SCHEMAS_FROM_HOST);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'zot extension protocol',
    description:
      `Frames of the zot extension protocol, versions 1 to ${PROTOCOL_VERSION} (hello.protocol_version ` +
      'negotiates; a frame of a later version is never sent to an extension of an earlier one): one JSON object ' +
      `per LF-terminated line, at most ${MAX_FRAME_BYTES} bytes. Receivers ignore unknown ` +
      'fields and unknown frame types. Generated from @zot/protocol; do not edit.',
    anyOf: [refTo('FrameFromExtension'), refTo('FrameFromHost')],
    $defs: {
      FrameFromExtension: {
        title: 'FrameFromExtension',
        description: 'A frame an extension writes to its stdout, discriminated on `type`.',
        oneOf: fromExtension,
      },
      FrameFromHost: {
        title: 'FrameFromHost',
        description: "A frame the host writes to an extension's stdin, discriminated on `type`.",
        oneOf: fromHost,
      },
      ...defs,
    },
  };
}

/** The protocol's JSON Schema document. Contract: deterministic (same input, same JSON). */
export const EXTENSION_PROTOCOL_SCHEMA_DOCUMENT: Readonly<Record<string, unknown>> =
  buildDocument();
