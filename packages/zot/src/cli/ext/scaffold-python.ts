// What `zot ext new --lang python` writes: main.py on the Python SDK, with the SDK itself
// (zot_sdk/, standard library only) copied next to it from this zot's own files
// (sdk-python/zot_sdk), so the extension runs with nothing installed and carries the SDK it was
// written against.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedPythonSdk } from '../../config/shipped.js';

export interface ScaffoldFile {
  path: string;
  content: string;
  executable?: boolean;
}

/** `main.py` and the `zot_sdk/` package beside it. Contract: throws naming a missing SDK. */
export function pythonFiles(name: string, tool: string): ScaffoldFile[] {
  return [
    { path: 'main.py', content: pythonProgram(name, tool), executable: true },
    ...pythonSdkFiles(),
  ];
}

/** The package's modules (`*.py`, and `py.typed` if it has one), never caches. */
export function pythonSdkFiles(): ScaffoldFile[] {
  const sdk = shippedPythonSdk();
  if (!sdk.ok) throw new Error(`the Python SDK is not available: ${sdk.error}`);
  return readdirSync(sdk.path, { withFileTypes: true })
    .filter((entry) => entry.isFile() && (entry.name.endsWith('.py') || entry.name === 'py.typed'))
    .map((entry) => entry.name)
    .sort()
    .map((file) => ({
      path: `zot_sdk/${file}`,
      content: readFileSync(join(sdk.path, file), 'utf8'),
    }));
}

/** `main.py`. */
export function pythonProgram(name: string, tool: string): string {
  return String.raw`#!/usr/bin/env python3
"""${name}: a zot extension in Python, on the zot Python SDK (zot_sdk, standard library only).

zot_sdk/ beside this file is a copy of the SDK, so nothing needs installing. It speaks the
protocol for you: the handshake, one JSON object per line on stdin and stdout, replies with
the right ids. Handlers run on worker threads. print() and ext.log() go to stderr, which zot
appends to $ZOT_HOME/logs/ext-${name}.log; stdout is reserved for the protocol.
"""
from zot_sdk import Extension, display, text

ext = Extension("${name}", "0.1.0")


@ext.command("${name}", "say hello (${name})")
def hello(args):
    # The user typed /${name} [args]; display() shows text without calling the model.
    return display("hello from ${name}" + (": " + args if args else ""))


@ext.tool(
    "${tool}",
    "Greets someone by name.",
    {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "who to greet"}},
        "required": ["name"],
    },
)
def greet(args):
    # The model called the tool; zot has checked args against the schema above.
    return text("Hello, " + args["name"] + "!")


# More: @ext.on("turn_end"), @ext.intercept_tool_call, @ext.on_hello, panels, notes.
# See docs/sdk-python.md in the zot repository.

ext.run()
`;
}
