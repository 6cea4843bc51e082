import unittest

import zot_sdk
from zot_sdk import (
    allow,
    block,
    display,
    error,
    image,
    insert,
    modify,
    noop,
    open_panel,
    prompt,
    replace_text,
    text,
    tool_error,
)
from zot_sdk._results import command_fields, decision_fields, tool_fields


class HelpersTest(unittest.TestCase):
    def test_command_results(self):
        self.assertEqual(prompt("p"), {"action": "prompt", "prompt": "p"})
        self.assertEqual(insert("i"), {"action": "insert", "insert": "i"})
        self.assertEqual(display("d"), {"action": "display", "display": "d"})
        self.assertEqual(noop(), {"action": "noop"})
        self.assertEqual(error("bad"), {"error": "bad"})
        self.assertEqual(
            open_panel("todo", title="T", lines=["a", 1], footer="f"),
            {"action": "open_panel", "open_panel": {"id": "todo", "title": "T", "lines": ["a", "1"], "footer": "f"}},
        )
        self.assertEqual(open_panel({"id": "x", "lines": []})["open_panel"], {"id": "x", "lines": []})
        with self.assertRaises(ValueError):
            open_panel({"title": "no id"})

    def test_tool_results(self):
        self.assertEqual(text("hi"), {"content": [{"type": "text", "text": "hi"}]})
        self.assertEqual(
            text("on", activate_tools=["b"]),
            {"content": [{"type": "text", "text": "on"}], "activate_tools": ["b"]},
        )
        self.assertEqual(
            image("image/png", b"\x89PNG"),
            {"content": [{"type": "image", "mime_type": "image/png", "data": "iVBORw=="}]},
        )
        self.assertEqual(image("image/png", "QUJD")["content"][0]["data"], "QUJD")
        self.assertEqual(tool_error("no"), {"content": [{"type": "text", "text": "no"}], "is_error": True})
        both = text("a") + image("image/gif", "R0lG")
        self.assertEqual([block["type"] for block in both["content"]], ["text", "image"])

    def test_decisions(self):
        self.assertEqual(allow(), {})
        self.assertEqual(block("why"), {"block": True, "reason": "why"})
        self.assertEqual(block(), {"block": True})
        self.assertEqual(modify({"a": 1}), {"modified_args": {"a": 1}})
        self.assertEqual(replace_text("x"), {"replace_text": "x"})
        with self.assertRaises(TypeError):
            modify("not a dict")

    def test_what_handlers_may_return(self):
        self.assertEqual(command_fields(None), {"action": "noop"})
        self.assertEqual(command_fields("shown"), display("shown"))
        with self.assertRaises(TypeError):
            command_fields(42)
        self.assertEqual(tool_fields(None), {"content": []})
        self.assertEqual(tool_fields("t"), text("t"))
        self.assertEqual(tool_fields(["a", {"type": "text", "text": "b"}])["content"][1]["text"], "b")
        merged = tool_fields([text("a"), tool_error("b")])
        self.assertEqual((len(merged["content"]), merged["is_error"]), (2, True))
        self.assertEqual(tool_fields({"n": 1})["content"][0]["text"], '{\n  "n": 1\n}')
        self.assertEqual(decision_fields(None), {})
        self.assertEqual(decision_fields(True), {})
        self.assertEqual(decision_fields(False), {"block": True})
        with self.assertRaises(TypeError):
            decision_fields("yes")

    def test_public_names(self):
        for name in (
            "Extension prompt insert display open_panel noop error text image tool_error "
            "allow block modify replace_text"
        ).split():
            self.assertIn(name, zot_sdk.__all__)
            self.assertTrue(hasattr(zot_sdk, name))
        methods = (
            "command tool on intercept_tool_call intercept_turn_start intercept_assistant_message "
            "on_hello on_panel_key on_shutdown notify clear_notes submit open_panel render_panel "
            "close_panel activate_tools log run"
        ).split()
        for name in methods:
            self.assertTrue(callable(getattr(zot_sdk.Extension, name)), name)


if __name__ == "__main__":
    unittest.main()
