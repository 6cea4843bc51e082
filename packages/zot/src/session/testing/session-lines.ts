// Lines of session files, written as zot writes them, for the loader's tests.

/** One entry as a line of a session file. */
export const sessionLine = (value: unknown) => JSON.stringify(value) + '\n';

/** A session file's header line, for a session of `cwd`. */
export const sessionHeader = (cwd = '/p') =>
  sessionLine({
    type: 'session',
    version: 1,
    cwd,
    created: 't',
    provider: 'anthropic',
    model: 'm',
  });
