// Which stdio servers run in a sandbox, with what, and the command that starts them there.
// A project's servers always do: by default they may read the project and nothing else
// private, write nothing but their own data directory and a private /tmp, and reach no network;
// an entry's "permissions" (the language of an extension's permissions block) adds to that.
// A server in your own mcp.json runs with your rights unless its entry has "permissions", like
// your own extensions. The sandbox is zot's own: `zot sandbox exec`, which refuses (exit 125,
// with the cause and the fix) where it cannot start, and never runs the server without it.

/** "permissions" as an entry gives it: absent, "unscoped", or a block (checked by zot). */
export type ServerPermissions = 'unscoped' | Readonly<Record<string, unknown>>;

/** The exit status of `zot sandbox exec` when the sandbox could not start. */
export const SANDBOX_FAILED = 125;

/** The variable zot gives its extensions: a JSON array, the command that runs zot itself. */
export const SELF_ARGV_ENV = 'ZOT_EXT_ZOT_ARGV';

const MAX_PERMISSIONS_CHARS = 16 * 1024;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An entry's "permissions" field. Contract: throws an Error naming the field when it is
 * unusable, or when a project file asks for "unscoped" (only your own file may).
 */
export function parseServerPermissions(
  raw: unknown,
  source: 'user' | 'project',
): ServerPermissions | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'unscoped') {
    if (source === 'project')
      throw new Error(
        '"permissions": "unscoped" is allowed only in your own mcp.json ($ZOT_HOME); a ' +
          "project's servers always run in a sandbox (give them what they need instead)",
      );
    return 'unscoped';
  }
  if (!isObject(raw))
    throw new Error(
      '"permissions" must be an object ({"fs": {"read": [...], "write": [...]}, "net": ..., "exec": [...], "env": [...]}) or "unscoped"',
    );
  if (JSON.stringify(raw).length > MAX_PERMISSIONS_CHARS)
    throw new Error(`"permissions" is over ${MAX_PERMISSIONS_CHARS} characters`);
  return raw;
}

/** The block a server runs with, or undefined when it runs unscoped. */
export function effectivePermissions(config: {
  source: 'user' | 'project';
  permissions?: ServerPermissions;
  env: Readonly<Record<string, string>>;
}): Record<string, unknown> | undefined {
  const given = config.permissions;
  if (given === 'unscoped') return undefined;
  if (given === undefined && config.source === 'user') return undefined;
  const block: Record<string, unknown> = { ...(given ?? {}) };
  // The entry's own "env" is given to the server on purpose: it passes the sandbox too.
  const named = Object.keys(config.env).filter((name) => VARIABLE.test(name));
  if (named.length > 0) {
    const listed = Array.isArray(block.env) ? block.env : block.env === undefined ? [] : undefined;
    if (listed) block.env = [...new Set([...listed, ...named])];
  }
  return block;
}

/** One line for /mcp and the trust review. */
export function describeScope(block: Record<string, unknown> | undefined): string {
  if (!block)
    return 'unscoped: runs with your full rights ("permissions" in its entry sandboxes it)';
  const extra = Object.keys(block).length > 0 ? `, and ${JSON.stringify(block)}` : '';
  return `sandbox: the project read-only, no network, nothing writable but its own data${extra}`;
}

/** How to run zot itself, from SELF_ARGV_ENV; undefined when zot did not say. */
function selfArgv(env: NodeJS.ProcessEnv): string[] | undefined {
  try {
    const value: unknown = JSON.parse(env[SELF_ARGV_ENV] ?? '');
    if (
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((item) => typeof item === 'string' && item !== '')
    )
      return value as string[];
  } catch {
    // unset or not JSON
  }
  return undefined;
}

/**
 * The program and arguments that start a stdio server: as written, or (sandboxed) behind
 * `zot sandbox exec`. Contract: never throws; an error says why it cannot start.
 */
export function serverCommand(
  config: {
    name: string;
    source: 'user' | 'project';
    command: string;
    args: readonly string[];
    permissions?: ServerPermissions;
    env: Readonly<Record<string, string>>;
  },
  cwd: string,
  env: NodeJS.ProcessEnv,
): { command: string; args: string[]; sandboxed: boolean } | { error: string } {
  const block = effectivePermissions(config);
  if (!block) return { command: config.command, args: [...config.args], sandboxed: false };
  const zot = selfArgv(env);
  if (!zot)
    return {
      error:
        `it runs in a sandbox, which the bridge starts with \`zot sandbox exec\`, but zot did ` +
        `not say how to run itself (${SELF_ARGV_ENV} is not set: run the bridge under a zot ` +
        `that has \`zot sandbox exec\`); it was not started`,
    };
  const name = `mcp-${config.name.replace(/[^A-Za-z0-9._-]/g, '_')}`.slice(0, 64);
  return {
    command: zot[0]!,
    args: [
      ...zot.slice(1),
      'sandbox',
      'exec',
      '--name',
      name,
      '--project',
      cwd,
      '--permissions',
      JSON.stringify(block),
      '--',
      config.command,
      ...config.args,
    ],
    sandboxed: true,
  };
}
