// no_proxy and proxy variables read as curl's documentation describes them (curl(1), ENVIRONMENT
// and --noproxy): the cases below are its examples and rules, plus the port entries zot adds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bypassesProxy, proxyAuthorization, proxyFor, proxyPort } from './proxy.js';

const url = (text: string) => new URL(text);

test('no_proxy: names match themselves and their subdomains, with or without a leading dot', () => {
  const cases: Array<[string, string, boolean]> = [
    ['https://example.com/v1', 'example.com', true],
    ['https://api.example.com/v1', 'example.com', true],
    ['https://api.example.com/v1', '.example.com', true],
    ['https://example.com/v1', '.example.com', true],
    ['https://notexample.com/v1', 'example.com', false],
    ['https://example.com.evil.net/v1', 'example.com', false],
    ['https://EXAMPLE.com/v1', 'Example.COM', true],
    ['https://example.com./v1', 'example.com', true],
    ['https://api.openai.com/v1', 'localhost, .internal ,openai.com', true],
    ['https://api.openai.com/v1', 'localhost .internal openai.com', true],
    ['https://api.openai.com/v1', '', false],
    ['https://api.openai.com/v1', ',,', false],
  ];
  for (const [target, noProxy, expected] of cases) {
    assert.equal(bypassesProxy(url(target), noProxy), expected, `${target} with ${noProxy}`);
  }
});

test('no_proxy: * alone matches every host; inside a name it is no wildcard', () => {
  assert.equal(bypassesProxy(url('https://api.anthropic.com'), '*'), true);
  assert.equal(bypassesProxy(url('https://api.anthropic.com'), 'foo, *'), true);
  assert.equal(bypassesProxy(url('https://api.anthropic.com'), '*.anthropic.com'), false);
});

test('no_proxy: IP addresses match exactly or by CIDR network, never by name suffix', () => {
  const cases: Array<[string, string, boolean]> = [
    ['http://127.0.0.1:11434', '127.0.0.1', true],
    ['http://127.0.0.1:11434', '127.0.0.0/8', true],
    ['http://10.1.2.3', '10.0.0.0/16', false],
    ['http://10.0.2.3', '10.0.0.0/16', true],
    ['http://192.168.1.10', '168.1.10', false],
    ['http://[::1]:8080', '::1', true],
    ['http://[::1]:8080', '[::1]', true],
    ['http://[fd00::5]', 'fd00::/8', true],
    ['http://[fe80::5]', 'fd00::/8', false],
    ['http://localhost', '127.0.0.1', false],
    ['http://10.0.0.1', '10.0.0.0/40', false],
  ];
  for (const [target, noProxy, expected] of cases) {
    assert.equal(bypassesProxy(url(target), noProxy), expected, `${target} with ${noProxy}`);
  }
});

test('no_proxy: an entry with a port matches only that port (default ports count)', () => {
  assert.equal(bypassesProxy(url('http://localhost:11434'), 'localhost:11434'), true);
  assert.equal(bypassesProxy(url('http://localhost:8080'), 'localhost:11434'), false);
  assert.equal(bypassesProxy(url('https://example.com'), 'example.com:443'), true);
  assert.equal(bypassesProxy(url('http://example.com'), 'example.com:443'), false);
  assert.equal(bypassesProxy(url('http://[::1]:9000'), '[::1]:9000'), true);
  assert.equal(bypassesProxy(url('http://[::1]:9001'), '[::1]:9000'), false);
});

test('the scheme picks the variable; lowercase wins; all_proxy is the fallback', () => {
  const env = {
    https_proxy: 'http://lower:1',
    HTTPS_PROXY: 'http://upper:2',
    HTTP_PROXY: 'http://plain:3',
    ALL_PROXY: 'http://all:4',
  };
  const route = (target: string, over: Record<string, string | undefined> = {}) => {
    const found = proxyFor(url(target), { ...env, ...over });
    return found && 'proxy' in found ? found.proxy.host : found;
  };
  assert.equal(route('https://api.openai.com'), 'lower:1');
  assert.equal(route('https://api.openai.com', { https_proxy: undefined }), 'upper:2');
  assert.equal(route('https://api.openai.com', { https_proxy: ' ' }), 'upper:2');
  assert.equal(route('http://localhost:11434'), 'plain:3');
  assert.equal(route('http://localhost:11434', { HTTP_PROXY: undefined }), 'all:4');
  assert.equal(route('http://localhost:11434', { no_proxy: 'localhost' }), undefined);
  assert.equal(route('http://localhost:11434', { NO_PROXY: 'localhost' }), undefined);
  assert.equal(proxyFor(url('https://api.openai.com'), {}), undefined);
});

test('proxy URLs: no scheme means http; curl default ports; credentials percent-decoded', () => {
  const only = (value: string) => {
    const found = proxyFor(url('https://api.anthropic.com'), { https_proxy: value });
    assert.ok(found && 'proxy' in found, value);
    return found.proxy;
  };
  assert.equal(only('proxy.corp:3128').href, 'http://proxy.corp:3128/');
  assert.equal(proxyPort(only('proxy.corp')), 1080);
  assert.equal(proxyPort(only('https://proxy.corp')), 443);
  assert.equal(proxyPort(only('http://proxy.corp:8080')), 8080);
  const auth = proxyAuthorization(only('http://us%40er:p%3Ass@proxy.corp:3128'));
  assert.equal(auth, `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
  assert.equal(proxyAuthorization(only('proxy.corp:3128')), undefined);
  const bad = proxyFor(url('https://api.anthropic.com'), { https_proxy: 'socks5h://proxy:1080' });
  assert.deepEqual(bad, {
    error: 'proxy scheme socks5h (in https_proxy) is not supported (http, https)',
  });
});
