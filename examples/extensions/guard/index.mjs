// @ts-check
// guard: intercepts bash calls and assistant text, on @zot/sdk. The rules live in rules.mjs.
import { block, createExtension, modify, replaceText } from '@zot/sdk';
import { checkCommand, redact } from './rules.mjs';

const ext = createExtension({ name: 'guard', version: '1.0.0' });

ext.interceptToolCall(({ name, args }) => {
  if (name !== 'bash') return undefined; // allow
  const verdict = checkCommand(String(args.command ?? ''));
  if (verdict.block) return block(verdict.reason);
  if (verdict.rewritten) return modify({ ...args, command: verdict.rewritten }, verdict.reason);
  return undefined;
});

ext.interceptAssistantMessage(({ text }) => {
  const clean = redact(text);
  if (clean === text) return undefined;
  return replaceText(clean, 'guard: redacted what looks like an API key');
});

await ext.run();
