// Build-time code generation for the Python SDK: sdk-python/zot_sdk/_protocol.py, the protocol's
// vocabulary (version, line limit, event names, levels, actions, keys, frame types) written from
// the same constants and frame tables the TypeBox schemas use, so the two SDKs cannot drift.
// Run by scripts/gen-schema.mjs (`--check` in npm test); not part of the runtime.
// Contract: deterministic; pure (reads nothing but the definitions).
import {
  COMMAND_ACTIONS,
  EVENT_NAMES,
  INTERCEPTABLE_EVENTS,
  KNOWN_CAPABILITIES,
  MAX_FRAME_BYTES,
  NOTIFY_LEVELS,
  PANEL_KEYS,
  PROTOCOL_VERSION,
  TURN_END_STOPS,
} from './constants.js';
import { FRAME_SCHEMAS_FROM_EXTENSION } from './frames-extension.js';
import { FRAME_SCHEMAS_FROM_HOST } from './frames-host.js';

const WIDTH = 99;

/** A Python string literal (JSON's escapes are Python's for the text protocol names use). */
function str(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value))
    throw new Error(`codegen-python: ${value} is not printable ASCII`);
  return JSON.stringify(value);
}

/** `NAME = ("a", "b")`, wrapped one item per line when it does not fit. */
function tuple(name: string, items: readonly string[]): string {
  const literals = items.map(str);
  const inline = `${name} = (${literals.join(', ')}${literals.length === 1 ? ',' : ''})`;
  if (inline.length <= WIDTH) return inline;
  return `${name} = (\n${literals.map((item) => `    ${item},\n`).join('')})`;
}

interface Entry {
  doc: string;
  line: string;
}

function entries(): Entry[] {
  return [
    {
      doc: 'The newest protocol version (hello asks for it; hello_ack says what the host speaks).',
      line: `PROTOCOL_VERSION = ${PROTOCOL_VERSION}`,
    },
    {
      doc: 'The longest line (frame) in bytes, without its LF.',
      line: `MAX_LINE_BYTES = ${MAX_FRAME_BYTES}`,
    },
    { doc: 'Lifecycle events an extension can subscribe to.', line: tuple('EVENTS', EVENT_NAMES) },
    {
      doc: 'Events an extension can intercept (block or rewrite).',
      line: tuple('INTERCEPTABLE_EVENTS', INTERCEPTABLE_EVENTS),
    },
    { doc: 'Note levels (notify.level).', line: tuple('NOTIFY_LEVELS', NOTIFY_LEVELS) },
    {
      doc: 'What zot does after a slash command (command_response.action).',
      line: tuple('COMMAND_ACTIONS', COMMAND_ACTIONS),
    },
    {
      doc: 'Key names of panel_key.key; "rune" carries the character in text.',
      line: tuple('PANEL_KEYS', PANEL_KEYS),
    },
    {
      doc: "Why a turn ended (the turn_end event's stop).",
      line: tuple('TURN_END_STOPS', TURN_END_STOPS),
    },
    { doc: 'Capabilities hello may announce.', line: tuple('CAPABILITIES', KNOWN_CAPABILITIES) },
    {
      doc: 'Frame types zot sends.',
      line: tuple('FRAMES_FROM_HOST', Object.keys(FRAME_SCHEMAS_FROM_HOST)),
    },
    {
      doc: 'Frame types an extension sends.',
      line: tuple('FRAMES_FROM_EXTENSION', Object.keys(FRAME_SCHEMAS_FROM_EXTENSION)),
    },
  ];
}

/** The text of sdk-python/zot_sdk/_protocol.py. */
export function generatePythonProtocolSource(): string {
  const header = [
    '"""The protocol\'s vocabulary, generated from packages/protocol by scripts/gen-schema.mjs.',
    '',
    'Do not edit: run `npm run gen:schema`. npm test fails when this file is not what the',
    'definitions give, so the Python SDK cannot drift from the protocol.',
    '"""',
  ];
  const body = entries().map(({ doc, line }) => `#: ${doc}\n${line}\n`);
  return `${header.join('\n')}\n\n${body.join('')}`;
}
