"""The Extension against an in-process host over OS pipes."""
import threading
import time
import unittest

from zot_sdk import (
    Extension,
    block,
    display,
    modify,
    open_panel,
    prompt,
    replace_text,
    text,
    tool_error,
)

from .harness import Harness


class HandshakeTest(unittest.TestCase):
    def test_order_hello_ack_on_hello_registrations_ready(self):
        ext = Extension("order", "2.0.0")
        seen = []

        @ext.command("first", "one")
        def first(args):
            return None

        @ext.on_hello
        def hello(host):
            seen.append((host.cwd, host.data_dir, host.model))
            ext.notify("from on_hello")  # held until ready

            @ext.tool("late_tool", "registered in on_hello", {"type": "object"})
            def late(args):
                return "late"

        h = Harness(ext)
        before = h.ready(cwd="/p", data_dir="/d", model="m", extension_dir="/e")
        self.assertEqual(h.hello, {"type": "hello", "name": "order", "version": "2.0.0", "protocol_version": 2, "capabilities": ["commands"]})
        self.assertEqual(seen, [("/p", "/d", "m")])
        self.assertEqual([f["type"] for f in before], ["register_command", "register_tool"])
        self.assertEqual(h.next(), {"type": "notify", "level": "info", "message": "from on_hello"})
        self.assertEqual(ext.host.extension_dir, "/e")
        h.shutdown()

    def test_registration_after_ready_is_sent_at_once(self):
        ext = Extension("later")
        h = Harness(ext)
        self.assertEqual(h.ready(), [])

        @ext.command("/new", "added later")
        def new(args):
            return prompt("x")

        self.assertEqual(h.next(), {"type": "register_command", "name": "new", "description": "added later"})

        @ext.on("turn_end")
        def ended(event):
            pass

        self.assertEqual(h.next(), {"type": "subscribe", "events": ["turn_end"], "intercept": []})
        h.shutdown()

    def test_on_hello_that_raises_still_gets_ready(self):
        ext = Extension("brave")
        logs = []
        ext.log = lambda *parts: logs.append(" ".join(map(str, parts)))

        @ext.on_hello
        def broken(host):
            raise RuntimeError("oops")

        h = Harness(ext)
        self.assertEqual(h.ready(), [])
        h.shutdown()
        self.assertIn("on_hello hook broken raised RuntimeError: oops", logs[0])

    def test_end_of_input_before_and_after_hello_ack(self):
        h = Harness(Extension("eof"))
        h.next()
        h.end_input()
        self.assertEqual(h.wait(), 0)
        h = Harness(Extension("eof2"))
        h.ready()
        h.end_input()
        self.assertEqual(h.wait(), 0)

    def test_invalid_names_are_refused_early(self):
        ext = Extension("names")
        for bad in ("", "has space", "-dash", "x" * 65):
            with self.assertRaises(ValueError):
                ext.command(bad, "d")
        with self.assertRaises(ValueError):
            ext.tool("dotted.name", "tools allow letters, digits, _ and -")
        with self.assertRaises(TypeError):
            ext.tool("t", "d", "not a schema")


class HandlersTest(unittest.TestCase):
    def setUp(self):
        self.ext = Extension("h")
        self.logs = []
        self.ext.log = lambda *parts: self.logs.append(" ".join(map(str, parts)))
        self.h = Harness(self.ext)

    def tearDown(self):
        self.h.shutdown()

    def test_command_results_errors_and_lookup(self):
        ext = self.ext

        @ext.command("Greet", "say hi")
        def greet(args):
            return display("hi " + args)

        @ext.command("crash", "raises")
        def crash(args):
            raise KeyError("nope")

        @ext.command("bad", "returns something that is not JSON")
        def bad():
            return {"action": "display", "display": object()}

        self.h.ready()
        self.h.send({"type": "command_invoked", "id": "1", "name": "Greet", "args": "kim"})
        self.assertEqual(self.h.expect("command_response"), {"type": "command_response", "id": "1", "action": "display", "display": "hi kim"})
        self.h.send({"type": "command_invoked", "id": "2", "name": "greet", "args": ""})
        self.assertEqual(self.h.expect("command_response")["display"], "hi ")
        self.h.send({"type": "command_invoked", "id": "3", "name": "crash", "args": ""})
        self.assertEqual(self.h.expect("command_response")["error"], "/crash failed: KeyError: 'nope'")
        self.assertTrue(any("command /crash raised KeyError" in line and "Traceback" in line for line in self.logs))
        self.h.send({"type": "command_invoked", "id": "4", "name": "missing", "args": ""})
        self.assertIn("no command /missing", self.h.expect("command_response")["error"])
        self.h.send({"type": "command_invoked", "id": "5", "name": "bad", "args": ""})
        self.assertIn("not JSON", self.h.expect("command_response", id="5")["error"])

        @ext.tool("deep", "returns something nested too deeply for json")
        def deep(args):
            nested = []
            for _ in range(100000):
                nested = [nested]
            return [{"type": "text", "text": "x", "extra": nested}]

        self.h.send({"type": "tool_call", "id": "6", "name": "deep", "args": {}})
        self.h.expect("register_tool")
        result = self.h.expect("tool_result", id="6")
        self.assertEqual((result["is_error"], result["content"][0]["text"]), (True, "tool deep returned something that is not JSON"))

    def test_tools_activation_and_errors(self):
        ext = self.ext

        @ext.tool("loader", "unlocks", {"type": "object"})
        def loader(args):
            ext.activate_tools("hidden")
            return text("unlocked")

        @ext.tool("hidden", "deferred", {"type": "object", "properties": {"n": {"type": "integer"}}}, deferred=True)
        def hidden(args):
            return [text("n=%d" % args["n"]), text("done")]

        @ext.tool("fails", "raises")
        def fails(args):
            raise ValueError("bad input")

        before = self.h.ready()
        self.assertTrue(before[1]["deferred"])
        self.assertNotIn("deferred", before[0])
        self.h.send({"type": "tool_call", "id": "t1", "name": "loader", "args": {}})
        self.assertEqual(
            self.h.expect("tool_result"),
            {"type": "tool_result", "id": "t1", "content": [{"type": "text", "text": "unlocked"}], "activate_tools": ["hidden"]},
        )
        self.h.send({"type": "tool_call", "id": "t2", "name": "hidden", "args": {"n": 3}})
        self.assertEqual([b["text"] for b in self.h.expect("tool_result")["content"]], ["n=3", "done"])
        self.h.send({"type": "tool_call", "id": "t3", "name": "fails", "args": {}})
        result = self.h.expect("tool_result")
        self.assertTrue(result["is_error"])
        self.assertEqual(result["content"][0]["text"], "tool fails failed: ValueError: bad input")
        self.h.send({"type": "tool_call", "id": "t4", "name": "nope", "args": {}})
        self.assertTrue(self.h.expect("tool_result")["is_error"])
        # Outside a tool handler, activations ride on the next result.
        ext.activate_tools(["hidden", "other"])
        self.h.send({"type": "tool_call", "id": "t5", "name": "loader", "args": {}})
        self.assertEqual(self.h.expect("tool_result")["activate_tools"], ["hidden", "other"])

    def test_handlers_run_concurrently(self):
        ext = self.ext
        both = threading.Barrier(2, timeout=5)

        @ext.tool("meet", "waits for a second call")
        def meet(args):
            both.wait()
            return text(args["who"])

        self.h.ready()
        self.h.send({"type": "tool_call", "id": "a", "name": "meet", "args": {"who": "a"}})
        self.h.send({"type": "tool_call", "id": "b", "name": "meet", "args": {"who": "b"}})
        got = {self.h.expect("tool_result")["id"], self.h.expect("tool_result")["id"]}
        self.assertEqual(got, {"a", "b"})

    def test_interceptors(self):
        ext = self.ext
        calls = []

        @ext.intercept_tool_call
        def guard(call):
            calls.append((call.id, call.name, call.args))
            if call.name == "bash" and "rm" in call.args.get("command", ""):
                return block("no rm")
            if call.name == "bash":
                return modify({"command": "echo " + call.args["command"]})
            return None

        @ext.intercept_turn_start
        def gate(step):
            return step < 3

        @ext.intercept_assistant_message
        def scrub(text):
            if "boom" in text:
                raise RuntimeError("scrubber broke")
            return replace_text(text.replace("sk-1", "[redacted]"))

        before = self.h.ready()
        self.assertEqual(before[-1], {"type": "subscribe", "events": [], "intercept": ["tool_call", "turn_start", "assistant_message"]})
        send = self.h.send
        send({"type": "event_intercept", "id": "1", "event": "tool_call", "tool_id": "c1", "tool_name": "bash", "tool_args": {"command": "rm -rf /"}})
        self.assertEqual(self.h.expect("event_intercept_response"), {"type": "event_intercept_response", "id": "1", "block": True, "reason": "no rm"})
        send({"type": "event_intercept", "id": "2", "event": "tool_call", "tool_id": "c2", "tool_name": "bash", "tool_args": {"command": "ls"}})
        self.assertEqual(self.h.expect("event_intercept_response")["modified_args"], {"command": "echo ls"})
        send({"type": "event_intercept", "id": "3", "event": "tool_call", "tool_id": "c3", "tool_name": "read", "tool_args": {}})
        self.assertEqual(self.h.expect("event_intercept_response"), {"type": "event_intercept_response", "id": "3"})
        self.assertEqual(calls[0], ("c1", "bash", {"command": "rm -rf /"}))
        send({"type": "event_intercept", "id": "4", "event": "turn_start", "step": 3})
        self.assertEqual(self.h.expect("event_intercept_response")["block"], True)
        send({"type": "event_intercept", "id": "5", "event": "turn_start", "step": 1})
        self.assertEqual(self.h.expect("event_intercept_response"), {"type": "event_intercept_response", "id": "5"})
        send({"type": "event_intercept", "id": "6", "event": "assistant_message", "text": "key sk-1"})
        self.assertEqual(self.h.expect("event_intercept_response")["replace_text"], "key [redacted]")
        send({"type": "event_intercept", "id": "7", "event": "assistant_message", "text": "boom"})
        failed = self.h.expect("event_intercept_response")
        self.assertEqual(sorted(failed), ["error", "id", "type"], "a failure is not an allow")
        self.assertIn("assistant_message interceptor failed: RuntimeError: scrubber broke", failed["error"])

    def test_an_interception_that_cannot_be_answered_is_an_error_not_an_allow(self):
        ext = self.ext

        @ext.intercept_tool_call
        def guard(call):
            if call.name == "odd":
                return modify({"when": object()})  # not JSON: cannot be sent
            return block("no")

        self.h.ready()
        send = self.h.send
        send({"type": "event_intercept", "id": "1", "event": "tool_call", "tool_name": "odd", "tool_args": {}})
        odd = self.h.expect("event_intercept_response")
        self.assertEqual(sorted(odd), ["error", "id", "type"])
        self.assertIn("answer is not JSON", odd["error"])
        send({"type": "event_intercept", "id": "2", "event": "tool_call", "tool_name": "x", "tool_args": "rm -rf /"})
        unread = self.h.expect("event_intercept_response")
        self.assertEqual(sorted(unread), ["error", "id", "type"])
        self.assertIn("without an object tool_args", unread["error"])

    def test_events_and_panel_keys_arrive_in_order(self):
        ext = self.ext
        events = []
        keys = []
        closed = []

        @ext.on("turn_start")
        def started(event):
            time.sleep(0.001 * (5 - event["step"] % 5))  # a slow handler must not reorder
            events.append(event["step"])

        @ext.on_panel_key
        def key(k):
            time.sleep(0.002 if k.text == "b" else 0)
            keys.append(k.text if k.key == "rune" else k.key)
            ext.render_panel(k.panel_id, lines=["".join(keys)])

        @ext.on_panel_close
        def close(panel_id):
            closed.append(panel_id)

        self.h.ready()
        for step in range(1, 11):
            self.h.send({"type": "event", "event": "turn_start", "step": step})
        for ch in "buy milk":
            self.h.send({"type": "panel_key", "panel_id": "p", "key": "rune", "text": ch})
        self.h.send({"type": "panel_key", "panel_id": "p", "key": "enter"})
        self.h.send({"type": "panel_close", "panel_id": "p"})
        last = None
        for _ in range(9):
            last = self.h.expect("panel_render")
        self.assertEqual(last, {"type": "panel_render", "panel_id": "p", "lines": ["buy milkenter"]})
        deadline = time.monotonic() + 5
        while (len(events) < 10 or not closed) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(events, list(range(1, 11)))
        self.assertEqual(closed, ["p"])

    def test_unknown_frames_bad_lines_and_oversize_are_survived(self):
        ext = self.ext

        @ext.command("ping", "pong")
        def ping(args):
            return display("pong")

        self.h.ready()
        self.h.send({"type": "from_the_future", "x": 1})
        self.h.send_raw(b"not json\n\n[1,2]\n\xff\xfe\n")
        self.h.send_raw(b'{"type":"command_invoked","id":"big","name":"ping","args":"' + b"a" * (33 * 1024 * 1024) + b'"}\n')
        self.h.send_raw(b'{"type":"command_invoked","id":"ok","name":"ping","args":""}\r\n')
        self.assertEqual(self.h.expect("command_response")["id"], "ok")
        self.assertIn("ignoring frames of unknown type 'from_the_future'", self.logs)
        self.assertIn("dropped a line longer than the protocol's limit", self.logs)
        self.assertEqual(sum("ignored a line from zot" in line for line in self.logs), 3)

    def test_panels_and_notes(self):
        ext = self.ext

        @ext.command("todo", "panel")
        def todo(args):
            return open_panel("todo", title="Todos", lines=["a"], footer="esc")

        self.h.ready()
        ext.open_panel("ask", title="Approve?", lines=["rm x"], footer="y/n")
        self.assertEqual(self.h.next(), {"type": "open_panel", "panel": {"id": "ask", "title": "Approve?", "lines": ["rm x"], "footer": "y/n"}})
        ext.render_panel({"id": "ask", "lines": ["ok"]})
        self.assertEqual(self.h.next(), {"type": "panel_render", "panel_id": "ask", "lines": ["ok"]})
        ext.close_panel("ask")
        self.assertEqual(self.h.next(), {"type": "panel_close", "panel_id": "ask"})
        ext.notify("careful", level="warn")
        ext.display("shown")
        ext.clear_notes()
        ext.submit("run the tests")
        self.assertEqual(
            [self.h.next() for _ in range(4)],
            [
                {"type": "notify", "level": "warn", "message": "careful"},
                {"type": "display", "text": "shown"},
                {"type": "clear_notes"},
                {"type": "submit", "text": "run the tests"},
            ],
        )
        with self.assertRaises(ValueError):
            ext.notify("x", level="loud")
        self.h.send({"type": "command_invoked", "id": "1", "name": "todo", "args": ""})
        self.assertEqual(self.h.expect("command_response")["open_panel"]["title"], "Todos")


class ReadingNeverStopsTest(unittest.TestCase):
    """Handlers run on the thread that read them; a standby takes over reading when one waits."""

    def gated(self, max_workers):
        ext = Extension("gates", max_workers=max_workers)
        opened = threading.Event()
        gate = threading.Event()

        @ext.tool("wait", "waits for the panel key")
        def wait(args):
            opened.set()
            return text("released" if gate.wait(5) else "timed out")

        @ext.on_panel_key
        def key(k):
            gate.set()

        return ext, opened

    def test_a_waiting_handler_does_not_stop_input_even_when_the_pool_is_full(self):
        ext, opened = self.gated(max_workers=2)
        h = Harness(ext)
        h.ready()
        for n in range(4):
            h.send({"type": "tool_call", "id": str(n), "name": "wait", "args": {}})
        # A handler waits (so the pool is full) before the key that releases it is written.
        self.assertTrue(opened.wait(5))
        h.send({"type": "panel_key", "panel_id": "p", "key": "enter"})
        results = [h.expect("tool_result") for _ in range(4)]
        self.assertEqual(sorted(r["id"] for r in results), ["0", "1", "2", "3"])
        self.assertEqual({r["content"][0]["text"] for r in results}, {"released"})
        h.shutdown()

    def test_after_a_quiet_period_the_standby_is_woken(self):
        from unittest import mock

        from zot_sdk import _lifecycle
        from zot_sdk._workers import Leaders

        asleep = threading.Event()

        class Watched(threading.Condition):
            """The readers' condition, telling when a thread waits with no timeout (asleep)."""

            def wait(self, timeout=None):
                if timeout is None:
                    asleep.set()
                return super().wait(timeout)

        class WatchedLeaders(Leaders):
            def __init__(self, *args):
                super().__init__(*args)
                self._cond = Watched(threading.Lock())

        patch = mock.patch.object(_lifecycle, "Leaders", WatchedLeaders)
        patch.start()
        self.addCleanup(patch.stop)
        ext, opened = self.gated(max_workers=4)
        h = Harness(ext)
        h.ready()
        # No request yet, so the standby sleeps until woken (it stops polling).
        self.assertTrue(asleep.wait(5))
        h.send({"type": "tool_call", "id": "w", "name": "wait", "args": {}})
        self.assertTrue(opened.wait(5))
        h.send({"type": "panel_key", "panel_id": "p", "key": "enter"})
        self.assertEqual(h.expect("tool_result")["content"][0]["text"], "released")
        h.shutdown()


class ShutdownTest(unittest.TestCase):
    def test_hook_runs_before_ack_and_in_flight_replies_are_sent(self):
        ext = Extension("bye")
        order = []

        @ext.tool("slow", "takes a moment")
        def slow(args):
            time.sleep(0.2)
            order.append("tool")
            return tool_error("late but answered")

        @ext.on_shutdown
        def bye():
            order.append("hook")

        h = Harness(ext)
        h.ready()
        h.send({"type": "tool_call", "id": "s", "name": "slow", "args": {}})
        h.send({"type": "shutdown"})
        self.assertEqual(h.expect("tool_result")["id"], "s")
        h.expect("shutdown_ack")
        self.assertEqual(h.wait(), 0)
        self.assertEqual(order, ["tool", "hook"])

    def test_a_hung_hook_does_not_hold_the_ack(self):
        import os

        os.environ["ZOT_EXT_SHUTDOWN_GRACE_MS"] = "500"
        try:
            ext = Extension("stuck")
            logs = []
            ext.log = lambda *parts: logs.append(" ".join(map(str, parts)))
            release = threading.Event()

            @ext.on_shutdown
            def never():
                release.wait(10)

            h = Harness(ext)
            h.ready()
            started = time.monotonic()
            h.shutdown()
            self.assertLess(time.monotonic() - started, 1.0)
            self.assertEqual(logs, ["on_shutdown hooks are still running; exiting anyway"])
            release.set()
        finally:
            del os.environ["ZOT_EXT_SHUTDOWN_GRACE_MS"]


class UiAnswersTest(unittest.TestCase):
    """ext.ui: each answer kind reaches the caller; a value that does not fit, a cancel and
    shutdown read as cancelled."""

    def test_each_answer_kind(self):
        ext = Extension("asker", "1.0.0")
        answers = []

        @ext.tool("ask", "asks one question per call", {"type": "object"})
        def ask(args):
            kind = args["kind"]
            if kind == "confirm":
                answer = ext.ui.confirm("Go?", timeout_ms=5000)
            elif kind == "select":
                answer = ext.ui.select("Which?", ["a", "b"])
            else:
                answer = ext.ui.input("Key?", mask=True)
            answers.append((answer.ok, answer.value, answer.reason))
            return "done"

        h = Harness(ext)
        h.ready(protocol_version=2)
        cases = [
            ("confirm", {"value": True}, (True, True, None)),
            ("confirm", {"value": False}, (True, False, None)),
            ("confirm", {"value": "yes"}, (False, None, "cancelled")),
            ("select", {"value": "b"}, (True, "b", None)),
            ("select", {"value": "z"}, (False, None, "cancelled")),
            ("input", {"value": "k3y"}, (True, "k3y", None)),
            ("input", {"cancelled": True}, (False, None, "cancelled")),
            ("select", {"unavailable": True}, (False, None, "unavailable")),
        ]
        for number, (kind, response, expected) in enumerate(cases):
            call = "c%d" % number
            h.send({"type": "tool_call", "id": call, "name": "ask", "args": {"kind": kind}})
            asked = h.expect("ui_request")
            self.assertEqual(asked["kind"], kind)
            if kind == "confirm":
                self.assertEqual(asked["timeout_ms"], 5000)
            if kind == "select":
                self.assertEqual(asked["options"], ["a", "b"])
            if kind == "input":
                self.assertIs(asked["mask"], True)
            frame = {"type": "ui_response", "id": asked["id"]}
            frame.update(response)
            h.send(frame)
            h.expect("tool_result", id=call)
            self.assertEqual(answers[-1], expected, (kind, response))

        # A question still open when zot shuts down ends as cancelled.
        h.send({"type": "tool_call", "id": "last", "name": "ask", "args": {"kind": "confirm"}})
        h.expect("ui_request")
        h.shutdown()
        self.assertEqual(answers[-1], (False, None, "cancelled"))


if __name__ == "__main__":
    unittest.main()
