// Rules from their sources: `"permissions": {"allow": [], "ask": [], "deny": []}` in
// $ZOT_HOME/config.json and the project's .zot/settings.json, and --allow/--ask/--deny.
import { readJsonObject } from '../../config/json-file.js';
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
  const read = readJsonObject<Record<string, unknown>>(file);
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
