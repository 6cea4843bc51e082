// The one rule for extension names (design D3): names become directory and log file names.

/** Lowercase letters, digits, '.', '_', '-'; starts with a letter or digit; 1 to 64 characters. */
export const EXTENSION_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const RULE =
  'use 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, ' +
  'with no ".." (pattern ^[a-z0-9][a-z0-9._-]{0,63}$)';

/**
 * Checks a name before it is used anywhere, in particular before it becomes a path component.
 * Contract: returns undefined when the name is valid, else an error naming the rule; never throws.
 */
export function checkExtensionName(name: string): string | undefined {
  if (typeof name !== 'string') return `invalid extension name: expected a string; ${RULE}`;
  // `..` can never start a valid name, but refusing it anywhere keeps "a..b" out of path
  // joins too, so no caller has to reason about where the dots ended up.
  if (EXTENSION_NAME_PATTERN.test(name) && !name.includes('..')) return undefined;
  return `invalid extension name ${JSON.stringify(name)}: ${RULE}`;
}
