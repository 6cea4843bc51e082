// Runs TypeScript from source on Node 20: `node --import ./ts-hooks.mjs src/index.ts`.
// Registers ts-loader.mjs, which strips types with esbuild (a devDependency) on load.
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
