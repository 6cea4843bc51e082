// Extension timeouts (design D8, D10): defaults, each overridable in milliseconds by env.

export interface ExtensionTimeouts {
  helloMs: number;
  readyMs: number;
  autoReadyMs: number;
  commandMs: number;
  toolMs: number;
  interceptMs: number;
  shutdownGraceMs: number;
  /** Between SIGTERM and SIGKILL of a process group. */
  killGraceMs: number;
  /** After its stdout ends, how long zot waits for the exit before a live extension is gone. */
  outputEndGraceMs: number;
  /**
   * From the first model request out to the spawn of the extensions held back for it (0: at
   * once). A run answered sooner never spawns them; a call of one of their tools starts it.
   */
  heldStartMs: number;
  /** ZOT_EXT_READY_TIMEOUT_MS is set: it wins over a manifest's `ready_timeout_ms`. */
  readyFromEnv?: boolean;
}

const DEFAULTS: ExtensionTimeouts = {
  helloMs: 10_000,
  readyMs: 3_000,
  autoReadyMs: 500,
  commandMs: 30_000,
  toolMs: 60_000,
  interceptMs: 5_000,
  shutdownGraceMs: 2_000,
  killGraceMs: 1_000,
  outputEndGraceMs: 500,
  heldStartMs: 100,
};

const ENV: Partial<Record<Exclude<keyof ExtensionTimeouts, 'readyFromEnv'>, string>> = {
  helloMs: 'ZOT_EXT_HELLO_TIMEOUT_MS',
  readyMs: 'ZOT_EXT_READY_TIMEOUT_MS',
  commandMs: 'ZOT_EXT_COMMAND_TIMEOUT_MS',
  toolMs: 'ZOT_EXT_TOOL_TIMEOUT_MS',
  interceptMs: 'ZOT_EXT_INTERCEPT_TIMEOUT_MS',
  shutdownGraceMs: 'ZOT_EXT_SHUTDOWN_GRACE_MS',
  heldStartMs: 'ZOT_EXT_HELD_START_MS',
};

/** Contract: never throws; unparsable or negative values fall back to the default. */
export function extensionTimeouts(env: NodeJS.ProcessEnv = process.env): ExtensionTimeouts {
  const result: ExtensionTimeouts = { ...DEFAULTS };
  type MsKey = Exclude<keyof ExtensionTimeouts, 'readyFromEnv'>;
  for (const [key, name] of Object.entries(ENV) as Array<[MsKey, string]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (Number.isFinite(value) && value >= 0) {
      result[key] = value;
      if (key === 'readyMs') result.readyFromEnv = true;
    }
  }
  return result;
}

/**
 * An extension's ready deadline: its manifest's `ready_timeout_ms` (for an extension whose tools
 * are known only after slow work, such as starting servers), unless ZOT_EXT_READY_TIMEOUT_MS is
 * set; else the default.
 */
export function readyDeadlineMs(timeouts: ExtensionTimeouts, manifestReadyMs?: number): number {
  return timeouts.readyFromEnv || manifestReadyMs === undefined
    ? timeouts.readyMs
    : manifestReadyMs;
}
