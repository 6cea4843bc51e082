// The program `zot ext new --lang python` writes: standard library only.

/** `main.py`. */
export function pythonProgram(name: string, tool: string): string {
  return String.raw`#!/usr/bin/env python3
"""${name}: a zot extension in Python, standard library only.

It speaks the zot extension protocol: one JSON object per line on stdin and stdout.
Diagnostics go to stderr, which zot appends to $ZOT_HOME/logs/ext-${name}.log.
"""
import json
import sys

NAME = "${name}"
TOOL = "${tool}"


def send(frame):
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def handle(frame):
    """Answers one frame from zot; returns False when it is time to exit."""
    kind = frame.get("type")
    if kind == "hello_ack":
        # Register everything, then say "ready" so zot stops waiting for registrations.
        send({"type": "register_command", "name": NAME, "description": "say hello (" + NAME + ")"})
        send({
            "type": "register_tool",
            "name": TOOL,
            "description": "Greets someone by name.",
            "schema": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "who to greet"}},
                "required": ["name"],
            },
        })
        send({"type": "ready"})
    elif kind == "command_invoked":
        # The user typed /${name} [args]; "display" shows text without calling the model.
        args = frame.get("args")
        args = args.strip() if isinstance(args, str) else ""
        text = "hello from " + NAME + (": " + args if args else "")
        send({"type": "command_response", "id": frame.get("id"), "action": "display", "display": text})
    elif kind == "tool_call":
        # The model called the tool; args follow the schema registered above.
        args = frame.get("args")
        who = args.get("name") if isinstance(args, dict) else None
        who = who if isinstance(who, str) else "stranger"
        content = [{"type": "text", "text": "Hello, " + who + "!"}]
        send({"type": "tool_result", "id": frame.get("id"), "content": content})
    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        return False
    # Events, intercepts and panel keys are not used here; unknown frames are ignored.
    return True


def main():
    send({"type": "hello", "name": NAME, "version": "0.1.0", "capabilities": ["commands", "tools"]})
    # Raw lines, split on LF only (str.splitlines would also split on U+2028 inside JSON strings).
    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            frame = json.loads(line)
        except ValueError as error:
            print(NAME + ": ignored a bad line: " + str(error), file=sys.stderr)
            continue
        if isinstance(frame, dict) and not handle(frame):
            return


if __name__ == "__main__":
    main()
`;
}
