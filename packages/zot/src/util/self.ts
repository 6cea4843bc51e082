// How to run this zot again (Node, its flags, the main script), as main.ts started it; unset when
// zot's code runs inside another program (the tests' in-process hosts). Extensions get it as
// ZOT_EXT_ZOT_ARGV, so that the MCP bridge can start its servers with `zot sandbox exec`.
let self: readonly string[] | undefined;

export function setSelfArgv(argv: readonly string[]): void {
  self = [...argv];
}

export function selfArgv(): readonly string[] | undefined {
  return self;
}

/** The variable extensions find it in: a JSON array of strings. */
export const SELF_ARGV_ENV = 'ZOT_EXT_ZOT_ARGV';
