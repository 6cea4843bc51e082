// Credentials out of every message that quotes a URL, parseable or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl, redactUrlsIn } from './redact.js';

test('user information is hidden, in URLs that parse and in ones that do not', () => {
  const cases: Array<[string, string]> = [
    ['http://alice:S3CRETPW@[bad', 'http://***@[bad'],
    ['http://alice:S3CRETPW@proxy.corp:3128', 'http://***@proxy.corp:3128'],
    ['alice:S3CRETPW@proxy.corp:3128', '***@proxy.corp:3128'],
    ['https://ghp_TOKEN@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    ['http://al@ce:p@ss@host/x', 'http://***@host/x'],
    ['http://alice:pa/ss@host/x', 'http://***@host/x'],
    ['https://registry.example:8080/@scope/pkg', 'https://registry.example:8080/@scope/pkg'],
    ['https://api.example.com/v1', 'https://api.example.com/v1'],
  ];
  for (const [url, shown] of cases) assert.equal(redactUrl(url), shown, url);
});

test('token-like query values are hidden, other parameters kept', () => {
  assert.equal(
    redactUrl('https://h/v1?key=S3CRET&model=m&access_token=T0K&X-Amz-Signature=abc#api_key=zz'),
    'https://h/v1?key=***&model=m&access_token=***&X-Amz-Signature=***#api_key=***',
  );
  assert.equal(redactUrl('https://h/?sig=1&token='), 'https://h/?sig=***&token=');
});

test('URLs inside free text (git, a server error) are redacted where they stand', () => {
  assert.equal(
    redactUrlsIn(
      "fatal: unable to access 'https://bob:ghp_SECRET@github.com/o/r.git/': 401; retry http://h/?token=S3CRET now",
    ),
    "fatal: unable to access 'https://***@github.com/o/r.git/': 401; retry http://h/?token=*** now",
  );
  assert.equal(redactUrlsIn('no url here: alice@example.com'), 'no url here: alice@example.com');
});
