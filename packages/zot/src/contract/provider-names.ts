// The providers zot knows, once: config (auth.json, settings), the providers layer and every
// front end take the list and the union from here, in the order lists show them.
export const PROVIDER_NAMES = [
  'anthropic',
  'openai',
  'kimi',
  'ollama',
  'lmstudio',
  'vllm',
  'llamacpp',
] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
