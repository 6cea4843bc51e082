import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_TOOL_NAMES, builtinTools, isBuiltinToolName } from './index.js';

test('builtinTools returns read, write, edit, bash with strict schemas', () => {
  const tools = builtinTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['read', 'write', 'edit', 'bash'],
  );
  assert.deepEqual([...BUILTIN_TOOL_NAMES], ['read', 'write', 'edit', 'bash']);
  for (const tool of tools) {
    assert.equal(tool.parameters.type, 'object');
    assert.equal(tool.parameters.additionalProperties, false);
    assert.ok(Array.isArray(tool.parameters.required));
    assert.equal(typeof tool.preview, 'function');
    assert.ok(tool.description.length > 20);
  }
});

test('builtinTools can select a subset', () => {
  assert.deepEqual(
    builtinTools({ only: ['bash', 'read'] }).map((tool) => tool.name),
    ['bash', 'read'],
  );
  assert.equal(isBuiltinToolName('edit'), true);
  assert.equal(isBuiltinToolName('skill'), false);
});
