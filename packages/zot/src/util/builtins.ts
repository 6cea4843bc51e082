// Node built-ins that zot loads on first use instead of importing them. An import loads a
// built-in with the importing module, at start-up (in the bundle's CommonJS as well), and an ESM
// import also reads every export, which runs the lazy getters: `node:crypto` brings Web Crypto
// and about twenty internal modules, `node:net` its BlockList and SocketAddress classes,
// `node:buffer` its File class. A run that never hashes, never checks a proxy rule and never
// reads a session line pays nothing for them (docs/architecture.md, "Start-up";
// startup-modules.test checks it).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let crypto: typeof import('node:crypto') | undefined;
let net: typeof import('node:net') | undefined;
let buffer: typeof import('node:buffer') | undefined;
let fsPromises: typeof import('node:fs/promises') | undefined;
let zlib: typeof import('node:zlib') | undefined;

export const nodeCrypto = (): typeof import('node:crypto') => (crypto ??= require('node:crypto'));
export const nodeNet = (): typeof import('node:net') => (net ??= require('node:net'));
export const nodeBuffer = (): typeof import('node:buffer') => (buffer ??= require('node:buffer'));
/** `node:zlib` (a checkpoint compresses the commit it writes itself). */
export const nodeZlib = (): typeof import('node:zlib') => (zlib ??= require('node:zlib'));
/** `node:fs/promises` (checkpoints walk and restore trees with it; a run without tools never). */
export const nodeFsPromises = (): typeof import('node:fs/promises') =>
  (fsPromises ??= require('node:fs/promises'));
