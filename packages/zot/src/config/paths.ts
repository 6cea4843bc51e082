// Where zot keeps its state (DECISIONS 1), resolved once from the environment.
import { homedir } from 'node:os';
import { join } from 'node:path';

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
  };
}
