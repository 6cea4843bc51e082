// Node built-ins that zot loads on first use instead of importing them. An ESM import of a
// built-in reads every one of its exports, which runs their lazy getters: `node:crypto` then
// loads Web Crypto and about twenty internal modules, `node:net` its BlockList and SocketAddress
// classes, `node:buffer` its File class. A run that never hashes, never checks a proxy rule and
// never reads a session line pays nothing for them (the start-up budget of docs/architecture.md;
// startup-modules.test checks it).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let crypto: typeof import('node:crypto') | undefined;
let net: typeof import('node:net') | undefined;
let buffer: typeof import('node:buffer') | undefined;

export const nodeCrypto = (): typeof import('node:crypto') => (crypto ??= require('node:crypto'));
export const nodeNet = (): typeof import('node:net') => (net ??= require('node:net'));
export const nodeBuffer = (): typeof import('node:buffer') => (buffer ??= require('node:buffer'));
