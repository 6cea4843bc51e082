// Rules from their sources: `"permissions": {"allow": [], "ask": [], "deny": []}` in
// $ZOT_HOME/config.json and the project's .zot/settings.json, and --allow/--ask/--deny.
import { statSync } from 'node:fs';
import { parseBoundedJson } from '@zot/protocol/bounds';
import { readHead } from '../../util/read-head.js';
import {
  parseRule,
  type Rule,
  type RuleAction,
  type RuleContext,
  type RuleSource,
} from './parse.js';

export const ACTIONS: readonly RuleAction[] = ['allow', 'ask', 'deny'];
/** More rules than this in one file are refused (the rest of the file still counts). */
const MAX_RULES_PER_FILE = 20_000;
/** A settings file larger than this is not read (a project's file is hostile input). */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

type SettingsRead = { ok: true; value?: Record<string, unknown> } | { ok: false; error: string };

/**
 * Reads a settings file without trusting it: a regular file only (a FIFO or a device would
 * block or never end), at most MAX_SETTINGS_BYTES, JSON with bounded depth, an object.
 */
export function readSettingsFile(file: string): SettingsRead {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return { ok: true };
  if (!stat.isFile()) return { ok: false, error: `${file} is not a regular file` };
  const head = readHead(file, MAX_SETTINGS_BYTES);
  if (!head) return { ok: false, error: `cannot read ${file}` };
  if (head.more) return { ok: false, error: `${file} is larger than ${MAX_SETTINGS_BYTES} bytes` };
  const parsed = parseBoundedJson(head.bytes.toString('utf8'));
  if (!parsed.ok) return { ok: false, error: `${file}: ${parsed.error}` };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `${file}: expected a JSON object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export interface LoadedRules {
  rules: Rule[];
  /** Problems, each naming the file and the rule; shown as warnings. */
  problems: string[];
}

/**
 * A rule that does not parse must not loosen anything: a bad allow rule is dropped, but a bad
 * deny or ask rule becomes that action for its whole tool (or for every tool when even the tool
 * cannot be read), so that a typo fails closed, loudly.
 */
function failClosed(
  text: string,
  action: RuleAction,
  source: RuleSource,
  file: string,
  context: RuleContext,
) {
  const tool = /^\s*([A-Za-z0-9_.*-]+)/.exec(text)?.[1] ?? '*';
  const rule = parseRule(tool, action, source, context);
  return { ...rule, text: `${tool} (from the invalid rule "${text}")`, file };
}

/** The rules of a parsed settings object. Contract: never throws. */
export function rulesFromSettings(
  value: unknown,
  file: string,
  source: RuleSource,
  context: RuleContext,
): LoadedRules {
  const out: LoadedRules = { rules: [], problems: [] };
  if (value === undefined) return out;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    out.problems.push(
      `${file}: "permissions" must be an object with "allow", "ask" and "deny" lists; ignoring it`,
    );
    return out;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(ACTIONS as readonly string[]).includes(key)) {
      out.problems.push(`${file}: unknown key "permissions.${key}" (expected allow, ask, deny)`);
    }
  }
  for (const action of ACTIONS) {
    const list = record[action];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      out.problems.push(`${file}: "permissions.${action}" must be a list of rules`);
      if (action !== 'allow') out.rules.push(failClosed('*', action, source, file, context));
      continue;
    }
    if (list.length > MAX_RULES_PER_FILE) {
      out.problems.push(
        `${file}: more than ${MAX_RULES_PER_FILE} ${action} rules; only the first are used`,
      );
    }
    for (const entry of list.slice(0, MAX_RULES_PER_FILE)) {
      const text = typeof entry === 'string' ? entry : JSON.stringify(entry);
      try {
        if (typeof entry !== 'string') throw new Error('a rule must be a string');
        out.rules.push({ ...parseRule(entry, action, source, context), file });
      } catch (error) {
        const reason = (error as Error).message;
        if (action === 'allow') {
          out.problems.push(`${file}: invalid allow rule "${text}": ${reason}; ignoring it`);
          continue;
        }
        const closed = failClosed(
          typeof entry === 'string' ? entry : '*',
          action,
          source,
          file,
          context,
        );
        out.problems.push(
          `${file}: invalid ${action} rule "${text}": ${reason}; until it is fixed, every ` +
            `${closed.tool === '*' ? '' : `${closed.tool} `}call is ${action === 'deny' ? 'denied' : 'asked about'}`,
        );
        out.rules.push(closed);
      }
    }
  }
  return out;
}

/** Reads the rules of one JSON file (absent file: none). Contract: never throws. */
export function rulesFromFile(file: string, source: RuleSource, context: RuleContext): LoadedRules {
  let read: SettingsRead;
  try {
    read = readSettingsFile(file);
  } catch (error) {
    read = { ok: false, error: `cannot read ${file}: ${(error as Error).message}` };
  }
  if (!read.ok) {
    // An unreadable file may hold deny rules: fail closed for every tool.
    return {
      rules: [
        { ...parseRule('*', 'deny', source, context), text: `* (${file} cannot be read)`, file },
      ],
      problems: [`${read.error}; until it is fixed, every tool call is denied`],
    };
  }
  return rulesFromSettings(read.value?.permissions, file, source, context);
}

/** The rules of --allow/--ask/--deny. Contract: throws an Error naming the flag and the rule. */
export function rulesFromFlags(
  flags: Record<RuleAction, readonly string[]>,
  context: RuleContext,
): Rule[] {
  return ACTIONS.flatMap((action) =>
    flags[action].map((text) => {
      try {
        return parseRule(text, action, 'cli', context);
      } catch (error) {
        throw new Error(`--${action} "${text}": ${(error as Error).message}`);
      }
    }),
  );
}
