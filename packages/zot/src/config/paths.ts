// Where zot keeps its state (design D1), resolved once from the environment.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export interface ZotPaths {
  home: string;
  config: string;
  auth: string;
  sessions: string;
  logs: string;
  systemPrompt: string;
  models: string;
  extensions: string;
  trust: string;
  /** One-time notes already shown (config/notices.ts). */
  notices: string;
  /** The TUI's keys, changed (modes/interactive/keybindings.ts). */
  keybindings: string;
}

export function resolveZotHome(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (env.ZOT_HOME) return env.ZOT_HOME;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'zot');
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'zot');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'zot');
  return join(home, '.local', 'state', 'zot');
}

/**
 * Where zot keeps what it can rebuild (V8's compiled code for its bundle), apart from its state:
 * `$XDG_CACHE_HOME/zot`, else `~/Library/Caches/zot` (macOS), `~/.cache/zot` (Linux),
 * `%LOCALAPPDATA%\\zot\\cache` (Windows). ZOT_HOME does not move it: ZOT_HOME holds state, and
 * a directory of state stays free of files zot may rewrite or remove at any time.
 */
export function resolveCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  // a relative path is invalid there (XDG Base Directory specification): ignored
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'zot');
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'zot');
  if (platform === 'win32') {
    return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'zot', 'cache');
  }
  return join(home, '.cache', 'zot');
}

/**
 * Where full outputs of cut tool results are saved: `$XDG_RUNTIME_DIR/zot/tool-output` (private
 * to the user, emptied at logout), else `tool-output` in zot's home. Never a shared directory
 * such as /tmp, where another user could create it first.
 */
export function resolveToolOutputDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime)) return join(runtime, 'zot', 'tool-output');
  return join(resolveZotHome(env), 'tool-output');
}

export function zotPaths(home = resolveZotHome()): ZotPaths {
  return {
    home,
    config: join(home, 'config.json'),
    auth: join(home, 'auth.json'),
    sessions: join(home, 'sessions'),
    logs: join(home, 'logs'),
    systemPrompt: join(home, 'SYSTEM.md'),
    models: join(home, 'models.json'),
    extensions: join(home, 'extensions'),
    trust: join(home, 'trust.json'),
    notices: join(home, 'notices.json'),
    keybindings: join(home, 'keybindings.json'),
  };
}
