// The bash parser behind the permission rules: tree-sitter's bash grammar, run as WebAssembly.
//
// Why this one (docs/security.md, "The shell parser", has the measurements): the candidates
// with a full bash grammar were sh-syntax 0.7 (mvdan/sh as WebAssembly), mvdan-sh 0.10
// (GopherJS) and tree-sitter-bash. sh-syntax returns statements without their commands (its
// tree is made for a formatter) and cannot reuse an instance (a second call crashes), mvdan-sh
// is deprecated by its author, so tree-sitter it is, from `@vscode/tree-sitter-wasm` (the
// runtime and the grammar as WebAssembly in one package with no install script, unlike
// `tree-sitter-bash`, whose install runs node-gyp). tree-sitter recovers from errors instead
// of failing, so the analysis treats every ERROR or MISSING node as "does not parse", and it
// knows a construct only when its node type is on a list (analyze.ts).
//
// Loaded on first need (a bash call while bash rules exist): about 60 ms on an idle machine.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';

/** The part of a tree-sitter node the analysis reads. */
export interface ShellNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly childCount: number;
  readonly startIndex: number;
  readonly endIndex: number;
  child(index: number): ShellNode | null;
  fieldNameForChild(index: number): string | null;
}

export interface ShellParser {
  /**
   * Parses `source`; undefined when the parser gave up (time limit, internal failure).
   * Contract: never throws; the tree is released before it returns (`visit` runs inside).
   */
  parse<T>(source: string, visit: (root: ShellNode) => T): T | undefined;
}

const PACKAGE = '@vscode/tree-sitter-wasm';
/** A parse that takes longer than this is abandoned (the command is then asked about). */
const PARSE_TIMEOUT_MICROS = 2_000_000;

interface TreeSitterModule {
  Parser: {
    init(options: { locateFile: (file: string) => string }): Promise<void>;
    new (): {
      setLanguage(language: unknown): void;
      setTimeoutMicros(micros: number): void;
      parse(source: string): { rootNode: ShellNode; delete(): void } | null;
    };
  };
  Language: { load(bytes: Uint8Array): Promise<unknown> };
}

let loading: Promise<ShellParser> | undefined;

/** Contract: rejects with a message naming the package when it cannot be loaded. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // a later call may try again
    throw new Error(
      `cannot load the bash parser (${PACKAGE}): ${(error as Error).message}; reinstall zot`,
    );
  });
  return loading;
}

async function load(): Promise<ShellParser> {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve(PACKAGE));
  const imported = (await import('@vscode/tree-sitter-wasm')) as unknown as TreeSitterModule & {
    default?: TreeSitterModule;
  };
  const ts = imported.default?.Parser ? imported.default : imported;
  // Emscripten sets process.exitCode when its runtime aborts; that is ours to decide.
  const exitCode = process.exitCode;
  await ts.Parser.init({ locateFile: (file) => join(dir, file) });
  const language = await ts.Language.load(await readFile(join(dir, 'tree-sitter-bash.wasm')));
  process.exitCode = exitCode;
  const parser = new ts.Parser();
  parser.setLanguage(language);
  parser.setTimeoutMicros(PARSE_TIMEOUT_MICROS);
  return {
    parse(source, visit) {
      const before = process.exitCode;
      let tree;
      try {
        tree = parser.parse(source);
      } catch {
        process.exitCode = before;
        return undefined;
      }
      if (!tree) return undefined;
      try {
        return visit(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}
