// Every extension-UI event of the contract reaches exactly one port method, and nothing else does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_SCHEMAS } from './events.js';
import type { SessionEvent } from './events.js';
import { routeExtensionUi, type ExtensionUi } from './extension-ui.js';

test('each ext_ event a person sees is routed to one port method; diagnostics are not', () => {
  const calls: string[] = [];
  const ui = new Proxy({} as ExtensionUi, {
    get: (_target, method) => (event: SessionEvent) =>
      calls.push(`${String(method)}:${event.type}`),
  });
  // ext_error, ext_warning and ext_restarted are diagnostics every mode reports itself.
  const diagnostics = new Set(['ext_error', 'ext_warning', 'ext_restarted']);
  const types = EVENT_SCHEMAS.map((schema) => String(schema.properties.type.const));
  for (const type of types) {
    calls.length = 0;
    const routed = routeExtensionUi({ type } as SessionEvent, ui);
    const expected = type.startsWith('ext_') && !diagnostics.has(type);
    assert.equal(routed, expected, type);
    assert.equal(calls.length, expected ? 1 : 0, type);
  }
  assert.ok(types.includes('ext_submit') && types.includes('ext_panel_render'));
});
