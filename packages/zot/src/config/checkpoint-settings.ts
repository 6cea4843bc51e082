// The `checkpoints` block of config.json: whether zot records the working tree before a turn's
// tools run, and the bounds of what it records and keeps (docs/checkpoints.md).
import { readJsonObject } from './json-file.js';

export interface CheckpointSettings {
  enabled: boolean;
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
  keepDays: number;
  maxStoreBytes: number;
}

const MIB = 1024 * 1024;

export const CHECKPOINT_DEFAULTS: CheckpointSettings = {
  enabled: true,
  maxFileBytes: 10 * MIB,
  maxTotalBytes: 1024 * MIB,
  maxFiles: 100_000,
  keepDays: 30,
  maxStoreBytes: 2048 * MIB,
};

const FIELDS: Record<Exclude<keyof CheckpointSettings, 'enabled'>, string> = {
  maxFileBytes: 'max_file_bytes',
  maxTotalBytes: 'max_total_bytes',
  maxFiles: 'max_files',
  keepDays: 'keep_days',
  maxStoreBytes: 'max_store_bytes',
};

/**
 * The checkpoint settings of config.json at `path`, defaults filled in. Contract: never throws;
 * a value of the wrong type is a warning naming the file and the field, and the default counts.
 */
export function loadCheckpointSettings(path: string): {
  settings: CheckpointSettings;
  warnings: string[];
} {
  const settings = { ...CHECKPOINT_DEFAULTS };
  const warnings: string[] = [];
  const read = readJsonObject<Record<string, unknown>>(path);
  if (!read.ok) return { settings, warnings }; // loadSettings reports the file itself
  const block = read.value?.checkpoints;
  if (block === undefined) return { settings, warnings };
  if (block === null || typeof block !== 'object' || Array.isArray(block)) {
    warnings.push(`${path}: "checkpoints" must be an object; using the defaults`);
    return { settings, warnings };
  }
  const values = block as Record<string, unknown>;
  if (values.enabled !== undefined) {
    if (typeof values.enabled === 'boolean') settings.enabled = values.enabled;
    else warnings.push(`${path}: "checkpoints.enabled" must be true or false; ignoring it`);
  }
  for (const [key, name] of Object.entries(FIELDS) as Array<[keyof typeof FIELDS, string]>) {
    const value = values[name];
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
      settings[key] = value;
    } else {
      warnings.push(`${path}: "checkpoints.${name}" must be a positive integer; ignoring it`);
    }
  }
  return { settings, warnings };
}
