// A local HTTP server that answers every POST with one recorded SSE stream, byte for byte, cut
// into chunks chosen by a seeded PRNG: event boundaries, CRLFs and multi-byte characters land
// inside chunks and across them, as they do on a real connection.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Rng } from '../fuzz/prng.js';

/** The recorded streams (test/fixtures/streams; their sources are in its README). */
export function streamFixture(name: string): Buffer {
  return readFileSync(
    fileURLToPath(new URL(`../../../test/fixtures/streams/${name}`, import.meta.url)),
  );
}

/**
 * How the bytes are cut: one write, or chunks of 1..maxChunk bytes drawn from `seed`;
 * `awkward` also cuts inside every UTF-8 sequence and between every CR or LF and the LF after it.
 */
export type Cutting = { whole: true } | { seed: number; maxChunk: number; awkward?: boolean };

export interface ReplayServer {
  readonly url: string;
  /** Serves `bytes` to the next requests, cut as `cutting` says. */
  serve(bytes: Buffer, cutting: Cutting): void;
  /** Chunk sizes of the last response, for failure messages. */
  lastChunks(): number[];
  close(): Promise<void>;
}

export function chunkSizes(bytes: Buffer, cutting: Cutting): number[] {
  if ('whole' in cutting) return [bytes.length];
  const rng = new Rng(cutting.seed);
  const cuts = new Set<number>();
  for (let at = rng.range(1, cutting.maxChunk); at < bytes.length; ) {
    cuts.add(at);
    at += rng.range(1, cutting.maxChunk);
  }
  if (cutting.awkward) {
    for (let i = 1; i < bytes.length; i++) {
      const continuation = (bytes[i]! & 0xc0) === 0x80;
      const secondBreak = bytes[i] === 0x0a && (bytes[i - 1] === 0x0a || bytes[i - 1] === 0x0d);
      if (continuation || secondBreak) cuts.add(i);
    }
  }
  const sizes: number[] = [];
  let from = 0;
  for (const at of [...cuts].sort((a, b) => a - b)) {
    sizes.push(at - from);
    from = at;
  }
  sizes.push(bytes.length - from);
  return sizes;
}

export async function startReplayServer(): Promise<ReplayServer> {
  let bytes: Buffer = Buffer.alloc(0);
  let cutting: Cutting = { whole: true };
  let last: number[] = [];

  async function answer(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    // Without Nagle each write leaves as its own segment, so the client's reads see the cuts.
    res.socket?.setNoDelay(true);
    const sizes = chunkSizes(bytes, cutting);
    last = sizes;
    let at = 0;
    for (const size of sizes) {
      if (res.destroyed) return;
      const more = res.write(bytes.subarray(at, at + size));
      at += size;
      if (!more) await new Promise((resolve) => res.once('drain', resolve));
      else await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.on('error', () => {});
    req.resume();
    req.on('end', () => void answer(res).catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (next, how) => {
      bytes = next;
      cutting = how;
    },
    lastChunks: () => last,
    close: async () => {
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
    },
  };
}
