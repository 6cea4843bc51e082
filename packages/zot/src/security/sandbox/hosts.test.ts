import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostAllowed, splitHostPort } from './hosts.js';

test('CONNECT targets: host:port, IPv6 in brackets; anything else is refused', () => {
  assert.deepEqual(splitHostPort('Example.com.:443'), { host: 'example.com', port: 443 });
  assert.deepEqual(splitHostPort('[::1]:8080'), { host: '[::1]', port: 8080 });
  assert.equal(splitHostPort('example.com'), undefined);
  assert.equal(splitHostPort('example.com:0'), undefined);
  assert.equal(splitHostPort('a/b:80'), undefined);
  assert.equal(splitHostPort('::1:80'), undefined);
});

test('a name allows every port, name:port one, *.name the names below it only', () => {
  const allow = ['example.com', 'api.test:8443', '*.npmjs.org', '[::1]:9000', '127.0.0.1:8080'];
  assert.ok(hostAllowed(allow, 'EXAMPLE.com.', 22));
  assert.ok(!hostAllowed(allow, 'www.example.com', 443));
  assert.ok(hostAllowed(allow, 'api.test', 8443));
  assert.ok(!hostAllowed(allow, 'api.test', 443));
  assert.ok(hostAllowed(allow, 'registry.npmjs.org', 443));
  assert.ok(hostAllowed(allow, 'a.b.npmjs.org', 80));
  assert.ok(!hostAllowed(allow, 'npmjs.org', 443));
  assert.ok(!hostAllowed(allow, 'evilnpmjs.org', 443));
  assert.ok(hostAllowed(allow, '[::1]', 9000));
  assert.ok(!hostAllowed(allow, '[::1]', 9001));
  assert.ok(hostAllowed(allow, '127.0.0.1', 8080));
  assert.ok(!hostAllowed(allow, '127.0.0.1', 8081));
  assert.ok(!hostAllowed([], 'example.com', 443));
});
