// Marks the compiled CLI entry executable, so a linked `zot` runs without `node` in front.
import { chmodSync, existsSync } from 'node:fs';
const bin = new URL('../packages/zot/dist/bundle/main.js', import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
