// The guard's rules, kept apart from the protocol code so they can be tested on their own.

/** Commands that are refused outright: [pattern, reason]. */
export const REFUSE = [
  [
    /\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+)*-[a-zA-Z]*[fF]?[a-zA-Z]*\s+(--no-preserve-root\s+)?\/(\s|$|\*)/,
    'deletes the root filesystem',
  ],
  [/\brm\s+-[a-zA-Z]*\s+(~|\$HOME)\/?(\s|$)/, 'deletes the home directory'],
  [/(^|[;&|]\s*|\s)sudo\s/, 'uses sudo'],
  [/^\s*sudo$/, 'uses sudo'],
  [/:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, 'is a fork bomb'],
  [
    /\b(dd|cat|cp|tee)\b[^|;&]*\bof?=?\s*\/dev\/(sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d)/,
    'writes to a block device',
  ],
  [/>\s*\/dev\/(sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d)/, 'writes to a block device'],
  [/\bmkfs(\.\w+)?\s/, 'formats a filesystem'],
  [/\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b/, 'pipes a download into a shell'],
];

/** Risky commands rewritten into safer equivalents: [pattern, replacement, note]. */
export const REWRITE = [
  [
    /\bgit\s+push\s+(.*?)(--force|-f)(?![\w-])/,
    'git push $1--force-with-lease',
    'force push -> --force-with-lease',
  ],
  [/\bchmod\s+(-R\s+)?777\b/, 'chmod $1755', 'chmod 777 -> 755'],
];

/** Secrets that must not reach the user's screen. */
export const SECRETS = [
  /\bsk-ant-[A-Za-z0-9_-]{10,}/g,
  /\bsk-(proj-)?[A-Za-z0-9_-]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];

export function checkCommand(command) {
  for (const [pattern, reason] of REFUSE) {
    if (pattern.test(command))
      return { block: true, reason: `guard refused: this command ${reason}` };
  }
  let rewritten = command;
  const notes = [];
  for (const [pattern, replacement, note] of REWRITE) {
    if (pattern.test(rewritten)) {
      rewritten = rewritten.replace(pattern, replacement);
      notes.push(note);
    }
  }
  return rewritten === command ? {} : { rewritten, reason: `guard: ${notes.join('; ')}` };
}

export function redact(text) {
  let result = text;
  for (const pattern of SECRETS) result = result.replace(pattern, '[redacted]');
  return result;
}
