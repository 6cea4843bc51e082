"""The Python SDK examples (examples/extensions/todo and approve-py) under a scripted host,
every frame checked against the protocol schema. The real host drives them in
packages/zot/test/sdk-py-examples.test.ts."""
import json
import os
import shutil
import sys
import tempfile
import unittest

from . import schema_check
from .fakehost import EXAMPLES, SDK_DIR, FakeHost


def copy_example(test, name):
    """A private copy of the example (its state must not land in the repository)."""
    base = tempfile.mkdtemp(prefix="zot-sdk-example-")
    test.addCleanup(shutil.rmtree, base, True)
    target = os.path.join(base, name)
    shutil.copytree(os.path.join(EXAMPLES, name), target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def start(test, directory, **env):
    extra = () if schema_check.protocol() is None or schema_check.has_frame_type("extension", "open_panel") else ("open_panel",)
    # The module path zot gives it: its own SDK for a manifest saying "sdk": "python", else none.
    with open(os.path.join(directory, "extension.json"), encoding="utf-8") as handle:
        declared = json.load(handle).get("sdk") == "python"
    path = SDK_DIR if declared else ""
    host = FakeHost([sys.executable, "main.py"], cwd=directory, env=dict(env, PYTHONPATH=path), extra_types=extra)
    test.addCleanup(host.close)
    return host


@unittest.skipUnless(os.path.isdir(EXAMPLES), "examples/ not found")
class TodoExampleTest(unittest.TestCase):
    def key(self, host, key, text=None):
        frame = {"type": "panel_key", "panel_id": "todo", "key": key}
        if text is not None:
            frame["text"] = text
        host.send(frame)
        return host.expect("panel_render")

    def test_panel_keys_persistence_and_tool(self):
        directory = copy_example(self, "todo")
        data = tempfile.mkdtemp(prefix="zot-todo-data-")
        self.addCleanup(shutil.rmtree, data, True)
        host = start(self, directory)
        hello = host.next()
        before = host.ack_and_collect(data_dir=data, extension_dir=directory)
        self.assertEqual(hello["name"], "todo")
        self.assertEqual([f.get("name") for f in before], ["todo", "todo_list"])

        host.send({"type": "command_invoked", "id": "1", "name": "todo", "args": ""})
        opened = host.expect("command_response")["open_panel"]
        self.assertEqual(opened["lines"], ["(nothing to do: press a to add a todo)"])
        self.key(host, "rune", "a")
        for ch in "buy milk":
            frame = self.key(host, "rune", ch)
        self.assertEqual(frame["lines"][-1], "new: buy milk_")
        self.key(host, "backspace")
        self.key(host, "rune", "k")
        frame = self.key(host, "enter")
        self.assertEqual(frame["lines"], ["> [ ] buy milk"])
        self.key(host, "rune", "a")
        for ch in "ship it":
            self.key(host, "rune", ch)
        self.key(host, "enter")
        frame = self.key(host, "up")
        self.assertEqual(frame["lines"], ["> [ ] buy milk", "  [ ] ship it"])
        frame = self.key(host, "rune", "x")
        self.assertEqual(frame["lines"][0], "> [x] buy milk")
        self.assertEqual(frame["title"], "Todos (1 open, 1 done)")
        host.send({"type": "tool_call", "id": "t", "name": "todo_list", "args": {}})
        self.assertEqual(host.expect("tool_result")["content"][0]["text"], "[x] buy milk\n[ ] ship it")
        frame = self.key(host, "rune", "d")
        self.assertEqual(frame["lines"], ["> [ ] ship it"])
        host.send({"type": "panel_close", "panel_id": "todo"})
        code, _ = host.shutdown()
        self.assertEqual(code, 0)
        self.assertEqual(host.problems, [])
        with open(os.path.join(data, "todos.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle), {"todos": [{"text": "ship it", "done": False}]})

        # A new process reads the saved list; /todo <text> adds straight away.
        again = start(self, directory)
        again.next()
        again.ack_and_collect(data_dir=data)
        again.send({"type": "command_invoked", "id": "2", "name": "todo", "args": "write docs"})
        self.assertEqual(again.expect("command_response")["open_panel"]["lines"], ["> [ ] ship it", "  [ ] write docs"])
        again.shutdown()
        self.assertEqual(again.problems, [])


@unittest.skipUnless(os.path.isdir(EXAMPLES), "examples/ not found")
class ApproveExampleTest(unittest.TestCase):
    def call(self, host, request, path, content="hello\n"):
        host.send({"type": "tool_call", "id": request, "name": "approve_write", "args": {"path": path, "content": content}})

    def test_yes_writes_no_esc_and_unavailable_refuse(self):
        directory = copy_example(self, "approve-py")
        project = tempfile.mkdtemp(prefix="zot-approve-project-")
        self.addCleanup(shutil.rmtree, project, True)
        host = start(self, directory, ZOT_EXT_TOOL_TIMEOUT_MS="30000")
        host.next()
        before = host.ack_and_collect(cwd=project)
        self.assertEqual([f.get("name") for f in before], ["approve_write"])

        self.call(host, "1", "notes/hi.txt")
        asked = host.expect("ui_request")
        self.assertEqual(asked["kind"], "confirm")
        self.assertEqual(asked["title"], "Write notes/hi.txt? (create, 6 bytes)\n\nhello")
        self.assertEqual(asked["timeout_ms"], 24000)  # most of the tool timeout
        host.send({"type": "ui_response", "id": asked["id"], "value": True})
        result = host.expect("tool_result", id="1")
        self.assertEqual(result["content"][0]["text"], "Wrote notes/hi.txt with the user's approval.")
        with open(os.path.join(project, "notes", "hi.txt"), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "hello\n")

        self.call(host, "2", "notes/hi.txt", content="\n".join("line %d" % i for i in range(12)))
        asked = host.expect("ui_request")
        self.assertTrue(asked["title"].startswith("Write notes/hi.txt? (overwrite, 85 bytes)"))
        self.assertTrue(asked["title"].endswith("line 7\n... 4 more lines"))
        host.send({"type": "ui_response", "id": asked["id"], "value": False})
        self.assertIn("The user refused", host.expect("tool_result", id="2")["content"][0]["text"])

        self.call(host, "3", "third.txt")
        asked = host.expect("ui_request")
        host.send({"type": "ui_response", "id": asked["id"], "cancelled": True})  # Esc, or too late
        self.assertIn("did not answer", host.expect("tool_result", id="3")["content"][0]["text"])

        self.call(host, "4", "fourth.txt")
        asked = host.expect("ui_request")
        host.send({"type": "ui_response", "id": asked["id"], "unavailable": True})  # print, JSON
        self.assertIn("Nobody can approve", host.expect("tool_result", id="4")["content"][0]["text"])
        for name in ("third.txt", "fourth.txt"):
            self.assertFalse(os.path.exists(os.path.join(project, name)))
        with open(os.path.join(project, "notes", "hi.txt"), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "hello\n", "the refused overwrite left the file alone")

        self.call(host, "5", "../escape.txt")
        self.assertIn("outside the project", host.expect("tool_result", id="5")["content"][0]["text"])
        host.shutdown()
        self.assertEqual(host.problems, [])


if __name__ == "__main__":
    unittest.main()
