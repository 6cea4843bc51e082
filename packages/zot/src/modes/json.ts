// JSON mode: run one prompt (or slash command), write every event as one JSON line on stdout.
import type { OneShotSession } from '../contract/front-end.js';
import { promptExitCode, reportDiagnostics, writeDiagnostic, type ModeIO } from './io.js';
import { outputWriter } from './pressure.js';
import { forwardingUi, isExtensionUiEvent } from '../contract/extension-ui.js';

export async function runJsonMode(
  session: OneShotSession,
  prompt: string,
  io: ModeIO,
  stop?: AbortSignal,
): Promise<number> {
  const out = outputWriter(io.stdout, session);
  session.subscribe((event) => {
    reportDiagnostics(event, io);
    if (event.type !== 'warning' && !isExtensionUiEvent(event)) out(JSON.stringify(event));
  });
  session.connectUi(forwardingUi((event) => out(JSON.stringify(event))));
  // A slash command may be any extension's: every one is waited for then.
  await session.startExtensions(prompt.startsWith('/') ? 'all' : 'needed');
  if (!prompt.startsWith('/')) return promptExitCode(await session.prompt(prompt), io, stop);
  const result = await session.runCommand(prompt, 'json', true);
  if (result.kind === 'prompt') return promptExitCode(result.outcome, io, stop);
  if (result.kind === 'error') {
    writeDiagnostic(io.stderr, `zot: ${result.message}`);
    return 1;
  }
  return 0;
}
