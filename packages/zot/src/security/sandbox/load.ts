// The run's sandbox settings: the user's config.json, tightened by the project's
// .zot/settings.json, with --sandbox choosing the user's mode for one run.
import { join } from 'node:path';
import { readJsonObject } from '../../config/json-file.js';
import {
  parseSandboxSettings,
  stricterMode,
  tightenSandbox,
  userSandbox,
  type SandboxMode,
  type SandboxSettings,
} from './settings.js';

export interface LoadedSandbox {
  settings: SandboxSettings;
  /** The project's minimum mode ('off' when it asks for none). */
  floor: SandboxMode;
  floorSource: string;
  /** Where sandbox.network came from, for the proxy's refusals. */
  networkSetting: string;
  warnings: string[];
}

export interface LoadSandboxOptions {
  /** $ZOT_HOME/config.json. */
  configPath: string;
  project: string;
  home: string;
  /** --sandbox: replaces the mode of config.json for this run (a project can still raise it). */
  cliMode?: SandboxMode;
}

/** The project's settings file. */
export const projectSettingsPath = (project: string) => join(project, '.zot', 'settings.json');

/** Contract: never throws; unreadable files and bad entries become warnings. */
export function loadSandbox(options: LoadSandboxOptions): LoadedSandbox {
  const warnings: string[] = [];
  const userFile = readJsonObject<Record<string, unknown>>(options.configPath);
  if (!userFile.ok) warnings.push(`${userFile.error}; its sandbox settings are ignored`);
  const user = parseSandboxSettings(
    userFile.ok ? userFile.value?.sandbox : undefined,
    options.configPath,
    options.home,
    options.home,
  );
  warnings.push(...user.warnings);
  const base = userSandbox(user.settings);
  if (options.cliMode) base.mode = options.cliMode;

  const projectPath = projectSettingsPath(options.project);
  const projectFile = readJsonObject<Record<string, unknown>>(projectPath);
  if (!projectFile.ok) warnings.push(`${projectFile.error}; its sandbox settings are ignored`);
  const project = parseSandboxSettings(
    projectFile.ok ? projectFile.value?.sandbox : undefined,
    projectPath,
    options.project,
    options.home,
  );
  warnings.push(...project.warnings);
  const tightened = tightenSandbox(base, project.settings, projectPath);
  warnings.push(...tightened.warnings);
  const floor = project.settings.mode ?? 'off';
  const sources = [
    options.configPath,
    ...(project.settings.network !== undefined ? [projectPath] : []),
  ];
  return {
    settings: { ...tightened.settings, mode: stricterMode(tightened.settings.mode, floor) },
    floor,
    floorSource: projectPath,
    networkSetting: `sandbox.network (${sources.join(' and ')})`,
    warnings,
  };
}
