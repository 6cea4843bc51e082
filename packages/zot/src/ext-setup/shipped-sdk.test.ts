import assert from 'node:assert/strict';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { withShippedSdk } from './shipped-sdk.js';

const manifestPath = '/exts/todo/extension.json';
const sdk = join('/opt/zot', 'sdk-python', 'zot_sdk');
const locate = () => ({ ok: true as const, path: sdk });
const provided = { readOnly: [sdk], env: ['PYTHONPATH'] };

test('"sdk": "python" puts the directory holding zot_sdk first on PYTHONPATH, keeping the rest', () => {
  const alone = withShippedSdk({ sdk: 'python', manifestPath }, { HOME: '/h' }, { locate });
  assert.deepEqual(alone, {
    ok: true,
    env: { HOME: '/h', PYTHONPATH: '/opt/zot/sdk-python' },
    provided,
  });
  const kept = withShippedSdk({ sdk: 'python', manifestPath }, { PYTHONPATH: '/mine' }, { locate });
  assert.ok(kept.ok);
  assert.equal(kept.env.PYTHONPATH, `/opt/zot/sdk-python${delimiter}/mine`);
});

test('a scoped extension gets the SDK directory alone, to read in its sandbox', () => {
  const env = { PYTHONPATH: '/mine' };
  const scoped = withShippedSdk({ sdk: 'python', manifestPath }, env, { scoped: true, locate });
  assert.deepEqual(scoped, { ok: true, env: { PYTHONPATH: '/opt/zot/sdk-python' }, provided });
});

test('without "sdk" the environment is untouched and the SDK is not looked for', () => {
  const env = { PYTHONPATH: '/mine' };
  const result = withShippedSdk({ manifestPath }, env, {
    locate: () => assert.fail('looked for the SDK'),
  });
  assert.deepEqual(result, { ok: true, env, provided: { readOnly: [], env: [] } });
});

test('a missing SDK is an error naming the manifest and what is missing', () => {
  const result = withShippedSdk(
    { sdk: 'python', manifestPath },
    {},
    {
      locate: () => ({
        ok: false,
        error: '/opt/zot/sdk-python/zot_sdk/__init__.py is missing from this zot',
      }),
    },
  );
  assert.deepEqual(result, {
    ok: false,
    error: `${manifestPath}: "sdk": "python" asks for zot's Python SDK, but /opt/zot/sdk-python/zot_sdk/__init__.py is missing from this zot`,
  });
});
