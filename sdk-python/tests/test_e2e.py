"""End to end: a real extension process over pipes, every frame in both directions checked
against schema/extension-protocol.schema.json with the standard-library validator in
schema_check.py."""
import os
import sys
import unittest

from . import schema_check
from .fakehost import FakeHost

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "ext_everything.py")


@unittest.skipIf(schema_check.protocol() is None, "schema/extension-protocol.schema.json not found")
class EndToEndTest(unittest.TestCase):
    def setUp(self):
        # The top-level open_panel frame is ours (issue 11); an older schema may not list it yet.
        self.open_panel_in_schema = schema_check.has_frame_type("extension", "open_panel")
        extra = () if self.open_panel_in_schema else ("open_panel",)
        self.host = FakeHost.python(SCRIPT, extra_types=extra)
        self.addCleanup(self.host.close)

    def command(self, request, args):
        self.host.send({"type": "command_invoked", "id": request, "name": "do", "args": args})
        return self.host.expect("command_response", id=request)

    def tool(self, request, s, name="echo"):
        self.host.send({"type": "tool_call", "id": request, "name": name, "args": {"s": s}})
        return self.host.expect("tool_result", id=request)

    def intercept(self, request, **fields):
        frame = {"type": "event_intercept", "id": request}
        frame.update(fields)
        self.host.send(frame)
        return self.host.expect("event_intercept_response", id=request)

    def test_every_frame_conforms(self):
        host = self.host
        hello, before = host.until_ready()
        self.assertEqual(hello["name"], "everything")
        self.assertEqual(hello["capabilities"], ["commands", "tools", "events", "panels"])
        self.assertEqual(
            [(f["type"], f.get("name")) for f in before],
            [
                ("register_command", "do"),
                ("register_command", "where"),
                ("register_tool", "echo"),
                ("register_tool", "secret"),
                ("subscribe", None),
            ],
        )
        self.assertEqual(before[-1]["events"], ["session_start", "turn_end"])
        self.assertEqual(before[-1]["intercept"], ["tool_call", "turn_start", "assistant_message"])

        self.assertEqual(self.command("1", "prompt hi")["prompt"], "say hi")
        self.assertEqual(self.command("2", "insert x")["insert"], "x")
        self.assertEqual(self.command("3", "display y")["display"], "y")
        self.assertEqual(self.command("4", "panel z")["open_panel"]["lines"], ["z"])
        self.assertEqual(self.command("5", "noop")["action"], "noop")
        self.assertEqual(self.command("6", "error e")["error"], "failed: e")
        self.assertIn("asked to raise", self.command("7", "raise")["error"])
        self.assertEqual(self.command("8", "child")["display"], "child done")
        self.command("9", "notes")
        host.send({"type": "command_invoked", "id": "10", "name": "where", "args": ""})
        self.assertEqual(host.expect("command_response", id="10")["display"], os.getcwd())

        self.assertEqual(self.tool("t1", "plain")["content"], [{"type": "text", "text": "plain"}])
        self.assertEqual([b["type"] for b in self.tool("t2", "image")["content"]], ["text", "image"])
        self.assertTrue(self.tool("t3", "fail")["is_error"])
        self.assertIn("tool raised", self.tool("t4", "raise")["content"][0]["text"])
        self.assertEqual(self.tool("t5", "unlock")["activate_tools"], ["secret"])
        self.assertEqual(self.tool("t6", "", name="secret")["content"][0]["text"], "secret ran")

        blocked = self.intercept("i1", event="tool_call", tool_id="c1", tool_name="bash", tool_args={"command": "rm -rf /"})
        self.assertEqual((blocked.get("block"), blocked.get("reason")), (True, "refused rm -rf"))
        rewritten = self.intercept("i2", event="tool_call", tool_id="c2", tool_name="bash", tool_args={"command": "ls"})
        self.assertEqual(rewritten["modified_args"], {"command": "echo guarded: ls"})
        self.assertEqual(self.intercept("i3", event="turn_start", step=9).get("block"), True)
        self.assertNotIn("block", self.intercept("i4", event="turn_start", step=1))
        self.assertEqual(self.intercept("i5", event="assistant_message", text="a SECRET")["replace_text"], "a [redacted]")

        host.send({"type": "event", "event": "session_start"})
        host.expect("notify", message="event session_start")
        host.send({"type": "event", "event": "turn_end", "stop": "end_turn"})
        host.expect("notify", message="event turn_end")
        host.send({"type": "panel_key", "panel_id": "main", "key": "rune", "text": "\u2028"})
        self.assertEqual(host.expect("panel_render")["lines"], ["key \u2028"])
        host.send({"type": "panel_key", "panel_id": "main", "key": "down"})
        self.assertEqual(host.expect("panel_render")["lines"], ["key down"])
        host.send({"type": "panel_key", "panel_id": "main", "key": "enter"})
        host.expect("panel_close", panel_id="main")
        host.send({"type": "panel_close", "panel_id": "main"})
        host.expect("notify", message="closed main")
        host.send_raw(b'{"type":"not_yet_invented","x":1}\n')

        code, seconds = host.shutdown()
        self.assertEqual(code, 0)
        self.assertLess(seconds, 2.0)
        self.assertEqual(host.problems, [])
        types = {frame["type"] for frame in host.received}
        for expected in (
            "hello register_command register_tool subscribe ready command_response tool_result "
            "event_intercept_response notify display clear_notes submit panel_render panel_close "
            "shutdown_ack"
        ).split():
            self.assertIn(expected, types)
        # stdout carried frames only; prints and child output went to stderr.
        self.assertTrue(all(line.startswith(b'{"type":') for line in host.raw_lines))
        for stray in ("a stray print in on_hello", "print() in a handler", "a child writing to stdout", "raw write to fd 1"):
            self.assertIn(stray, host.stderr)
        self.assertIn("shutting down", host.stderr)
        self.assertIn("asked to raise", host.stderr)

    def test_open_panel_frame(self):
        """The top-level open_panel frame (approval gates during a tool call)."""
        script = os.path.join(HERE, "ext_open_panel.py")
        host = FakeHost.python(script, extra_types=() if self.open_panel_in_schema else ("open_panel",))
        self.addCleanup(host.close)
        host.until_ready()
        frame = host.expect("open_panel")
        self.assertEqual(frame, {"type": "open_panel", "panel": {"id": "ask", "title": "Approve?", "lines": ["go"], "footer": "y/n"}})
        spec = schema_check.protocol().resolve("#/$defs/CommandResponseFrame")["properties"]["open_panel"]
        self.assertEqual(schema_check.protocol().errors(frame["panel"], spec), [])
        self.assertEqual(host.shutdown()[0], 0)
        self.assertEqual(host.problems, [])

    def test_exits_when_input_ends(self):
        self.host.until_ready()
        self.host.process.stdin.close()
        self.assertEqual(self.host.process.wait(timeout=5), 0)


if __name__ == "__main__":
    unittest.main()
