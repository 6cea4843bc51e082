// `zot auth set|list|remove`: the API key store.
import { AuthStore, maskKey, PROVIDER_NAMES, type ProviderName } from '../config/auth.js';
import { zotPaths } from '../config/paths.js';
import { UsageError } from '../util/errors.js';
import { AUTH_HELP } from './help.js';
import { writeLine, type ModeIO } from '../modes/io.js';

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function providerArg(args: string[], command: string): ProviderName {
  const provider = args[0];
  if (!provider)
    throw new UsageError(`zot auth ${command} needs a provider (${PROVIDER_NAMES.join(', ')})`);
  if (!PROVIDER_NAMES.includes(provider as ProviderName)) {
    throw new UsageError(
      `unknown provider "${provider}"; expected one of ${PROVIDER_NAMES.join(', ')}`,
    );
  }
  if (args.length > 1)
    throw new UsageError(`zot auth ${command}: unexpected argument "${args[1]}"`);
  return provider as ProviderName;
}

/** Returns the exit code. Contract: throws UsageError for bad arguments. */
export async function runAuthCommand(
  args: string[],
  io: ModeIO & { stdin: NodeJS.ReadableStream & { isTTY?: boolean } },
): Promise<number> {
  const [command, ...rest] = args;
  if (
    !command ||
    command === '--help' ||
    command === '-h' ||
    rest.includes('--help') ||
    rest.includes('-h')
  ) {
    writeLine(io.stdout, AUTH_HELP);
    return command ? 0 : 2;
  }
  const paths = zotPaths();
  const store = new AuthStore(paths.auth);
  switch (command) {
    case 'set': {
      const provider = providerArg(rest, 'set');
      if (io.stdin.isTTY) writeLine(io.stderr, `Paste the ${provider} API key and press Ctrl+D:`);
      const key = (await readStdin(io.stdin)).trim();
      if (key === '') {
        writeLine(
          io.stderr,
          'zot: no key on stdin; nothing stored (usage: echo "$KEY" | zot auth set <provider>)',
        );
        return 1;
      }
      store.set(provider, key);
      writeLine(io.stderr, `stored the ${provider} key (${maskKey(key)}) in ${paths.auth}`);
      return 0;
    }
    case 'list': {
      if (rest.length > 0) throw new UsageError(`zot auth list: unexpected argument "${rest[0]}"`);
      const entries = store.list();
      if (entries.length === 0) writeLine(io.stderr, `no stored keys (${paths.auth})`);
      for (const { provider, key } of entries) writeLine(io.stdout, `${provider}\t${maskKey(key)}`);
      return 0;
    }
    case 'remove': {
      const provider = providerArg(rest, 'remove');
      if (!store.remove(provider)) {
        writeLine(io.stderr, `zot: no stored key for ${provider}`);
        return 1;
      }
      writeLine(io.stderr, `removed the ${provider} key from ${paths.auth}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown auth command "${command}" (expected set, list or remove)`);
  }
}
