import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiUrl, isBaseUrl } from './base-url.js';

test('apiUrl adds /v1 once, with or without a trailing /v1 or slashes', () => {
  const want = 'https://api.example.com/v1/messages';
  for (const base of [
    'https://api.example.com',
    'https://api.example.com/',
    'https://api.example.com/v1',
    'https://api.example.com/v1/',
    'https://api.example.com/v1//',
    ' https://api.example.com/V1 ',
  ]) {
    assert.equal(apiUrl(base, 'messages'), want, base);
  }
});

test('apiUrl keeps a path prefix and strips leading slashes from the path', () => {
  assert.equal(
    apiUrl('http://localhost:8080/proxy', '/chat/completions'),
    'http://localhost:8080/proxy/v1/chat/completions',
  );
  assert.equal(
    apiUrl('http://127.0.0.1:1/proxy/v1', 'responses'),
    'http://127.0.0.1:1/proxy/v1/responses',
  );
  // Only a whole trailing `v1` segment counts.
  assert.equal(apiUrl('http://h/apiv1', 'x'), 'http://h/apiv1/v1/x');
});

test('isBaseUrl accepts absolute http(s) URLs with a host, and nothing else', () => {
  for (const good of [
    'http://127.0.0.1:8000',
    'https://api.example.com/v1/',
    'http://[::1]:11434/v1',
    ' http://gpu-box:11434 ',
  ]) {
    assert.equal(isBaseUrl(good), true, good);
  }
  for (const bad of [
    'notaurl',
    'localhost:8000',
    'ftp://example.com',
    'http://',
    'http://[::',
    'http://a b',
    'http://h/?x=1',
    'http://h/#top',
    'file:///etc/passwd',
    '',
  ]) {
    assert.equal(isBaseUrl(bad), false, bad);
  }
});
