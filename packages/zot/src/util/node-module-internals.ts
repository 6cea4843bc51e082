// The one use zot makes of Node's private module internals: Module.prototype._compile, the step
// that turns a CommonJS file's source into its function, replaced to compile with kept V8 data
// (util/code-cache.ts). The public route, module.enableCompileCache (Node 22.1+; this Node 20
// has none), keeps its files without authenticating them, and a cache inside a tree someone
// else supplied would then run their code: it is not used. Before patching, the shape the hook
// relies on is checked; when it has changed, nothing is patched, a note says so once, and Node
// compiles as usual (only slower). The test of this module fails on a Node that changes it.
import Module from 'node:module';

/** The wrapper parameters the hook passes, in Node's order. */
const WRAPPER_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];

/** What the hook sees of a module being compiled. */
export interface CompilingModule {
  exports: unknown;
}

/** Node's own compile step, for the files the hook leaves alone. */
export type Compile = (module: CompilingModule, ...args: unknown[]) => unknown;

interface PrivateModule {
  prototype: { _compile?: (this: CompilingModule, ...args: unknown[]) => unknown };
  wrap?: (source: string) => string;
}

/** Why `_compile` cannot be hooked in this Node, or undefined when it can. */
export function compileHookMismatch(module: unknown = Module): string | undefined {
  const internals = module as PrivateModule;
  const compile = internals.prototype?._compile;
  if (typeof compile !== 'function') return 'Module.prototype._compile is gone';
  if (compile.length < 2) return `Module.prototype._compile takes ${compile.length} arguments`;
  if (typeof internals.wrap !== 'function') return 'Module.wrap is gone';
  const wrapped = internals.wrap('');
  const parameters = /^\(function \(([^)]*)\) \{ \n\}\);$/.exec(wrapped)?.[1]?.split(', ');
  if (parameters?.join() !== WRAPPER_PARAMETERS.join())
    return `Module.wrap makes ${JSON.stringify(wrapped)}`;
  return undefined;
}

/** What Module.wrap puts before the source: `(function (exports, require, ...) { `. */
export function wrapperStart(): string {
  const wrapped = Module.wrap('');
  return wrapped.slice(0, wrapped.indexOf('{') + 2);
}

let warned = false;

/**
 * Routes every CommonJS compile through `hook(original, module, content, filename, ...rest)`.
 * Returns false, with nothing changed and a note written once through `warn`, when Node's
 * shape has changed.
 */
export function hookCompile(
  hook: (
    original: Compile,
    module: CompilingModule,
    content: string,
    filename: string,
    ...rest: unknown[]
  ) => unknown,
  warn: (line: string) => void = (line) => process.stderr.write(line),
  module: unknown = Module,
): boolean {
  const mismatch = compileHookMismatch(module);
  if (mismatch !== undefined) {
    if (!warned) {
      warned = true;
      warn(
        `zot: Node ${process.version} changed (${mismatch}): the code cache is off, zot runs ` +
          'as usual, only starts slower; ZOT_CODE_CACHE=0 silences this.\n',
      );
    }
    return false;
  }
  const prototype = (module as PrivateModule).prototype;
  const compile = prototype._compile!;
  const original: Compile = (target, ...args) => compile.apply(target, args);
  prototype._compile = function (this: CompilingModule, ...args: unknown[]) {
    const [content, filename, ...rest] = args;
    if (typeof content !== 'string' || typeof filename !== 'string')
      return compile.apply(this, args);
    return hook(original, this, content, filename, ...rest);
  };
  return true;
}
