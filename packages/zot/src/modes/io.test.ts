// What print, JSON and RPC modes write on stderr for extension crashes and restarts.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { reportDiagnostics, type ModeIO } from './io.js';

function capture(): { io: ModeIO; stderr: () => string } {
  const stderr = new PassThrough();
  const chunks: string[] = [];
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { io: { stdout: new PassThrough(), stderr }, stderr: () => chunks.join('') };
}

test('a crash and the restart after it are one stderr line each', () => {
  const { io, stderr } = capture();
  reportDiagnostics(
    {
      type: 'ext_error',
      extension: 'kit',
      message: 'extension kit killed by SIGKILL; restarting in 1 s (restart 1 of 3)',
      log_path: '/logs/ext-kit.log',
    },
    io,
  );
  reportDiagnostics({ type: 'ext_restarted', extension: 'kit', restarts: 1 }, io);
  reportDiagnostics({ type: 'ext_restarted', extension: 'kit', restarts: 2 }, io);
  assert.equal(
    stderr(),
    'zot: extension kit killed by SIGKILL; restarting in 1 s (restart 1 of 3) (log: /logs/ext-kit.log)\n' +
      'zot: extension kit restarted (restarted once since it was loaded)\n' +
      'zot: extension kit restarted (restarted 2 times since it was loaded)\n',
  );
});
