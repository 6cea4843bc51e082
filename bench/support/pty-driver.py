#!/usr/bin/env python3
"""Runs a command in a real pseudo-terminal and times what a user would see.

Usage: pty-driver.py SPEC_JSON
SPEC: {"argv": [...], "cwd": str, "env": {...}, "columns": int, "rows": int,
       "ready": str,           # output that means the first frame is drawn (a substring)
       "keys": [str, ...],     # after ready: each key is written, then we wait for "echo"
       "key_gap_ms": int,      # pause before each key (typing speed), output drained meanwhile
       "echo": str,            # the output that shows a key landed (e.g. the end of a frame)
       "echoes": [str, ...],   # or one such output per key (what the screen shows after it)
       "setup": str,           # after ready, before the keys: written, then "setup_echo" awaited
       "setup_echo": str,
       "quit": str,            # bytes that end the program after the keys (e.g. "\u0003\u0003")
       "timeout_ms": int}
Prints one JSON line: {"ready_ms", "key_ms": [...], "exit_ms", "bytes", "bytes_at_ready",
"cpu_ms_at_ready"}. Times are from spawn. cpu_ms_at_ready is the CPU time the child's threads had
used when the first frame arrived (Linux /proc schedstat; null elsewhere): far less sensitive to
load on the machine than wall time. Standard library only.
"""
import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time


def main() -> int:
    spec = json.loads(sys.argv[1])
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", spec["rows"], spec["columns"], 0, 0))

    def controlling_tty() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    env = dict(os.environ)
    env.update(spec.get("env", {}))
    started = time.perf_counter()
    child = subprocess.Popen(
        spec["argv"], cwd=spec.get("cwd"), env=env, stdin=slave, stdout=slave, stderr=slave,
        preexec_fn=controlling_tty, close_fds=True,
    )
    os.close(slave)
    deadline = started + spec.get("timeout_ms", 30000) / 1000
    out = bytearray()
    ms = lambda: (time.perf_counter() - started) * 1000

    # Like every terminal emulator, answer the primary device-attributes query (DA1): zot asks
    # it after its OSC 11 background query, and a terminal that never answers would be an
    # unusual one (zot then waits its query limit). OSC 11 itself is left unanswered, as by a
    # terminal that does not support it.
    da1_answered = 0

    def answer_queries() -> None:
        nonlocal da1_answered
        asked = out.count(b"\x1b[c")
        while da1_answered < asked:
            os.write(master, b"\x1b[?62;22c")
            da1_answered += 1

    def cpu_ms() -> "float | None":
        # Every thread of the child (V8 compiles and collects garbage on threads of its own).
        total = 0
        try:
            for task in os.listdir(f"/proc/{child.pid}/task"):
                with open(f"/proc/{child.pid}/task/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return total / 1e6

    def read_until(marker: bytes, since: int) -> bool:
        while out.find(marker, since) < 0:
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out.extend(chunk)
            answer_queries()
        return True

    result = {"ready_ms": None, "key_ms": [], "exit_ms": None}
    if read_until(spec["ready"].encode(), 0):
        result["ready_ms"] = ms()
        result["bytes_at_ready"] = len(out)
        result["cpu_ms_at_ready"] = cpu_ms()
        if spec.get("setup"):
            since = len(out)
            os.write(master, spec["setup"].encode())
            if not read_until(spec["setup_echo"].encode(), since):
                result["setup_failed"] = True
                spec["keys"] = []
        echo = spec.get("echo", "").encode()
        echoes = [e.encode() for e in spec.get("echoes", [])]
        gap = spec.get("key_gap_ms", 0) / 1000
        for index, key in enumerate(spec.get("keys", [])):
            if gap:
                # Typing speed, not a burst: a TUI may batch keys that come faster than a frame.
                time.sleep(gap)
                drain_until = time.perf_counter() + 0.001
                while select.select([master], [], [], 0)[0] and time.perf_counter() < drain_until + gap:
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    out.extend(chunk)
            since = len(out)
            sent = time.perf_counter()
            os.write(master, key.encode())
            expected = echoes[index] if index < len(echoes) else (echo or key.encode())
            if not read_until(expected, since):
                break
            result["key_ms"].append((time.perf_counter() - sent) * 1000)
        if spec.get("quit"):
            for part in spec["quit"]:
                os.write(master, part.encode())
                time.sleep(0.05)
    # Drain until the child exits (or the deadline), so its last bytes count too.
    while child.poll() is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out.extend(chunk)
    if child.poll() is None:
        child.send_signal(signal.SIGKILL)
        child.wait()
    else:
        result["exit_ms"] = ms()
    result["bytes"] = len(out)
    result["code"] = child.returncode
    if result["ready_ms"] is None or result.get("setup_failed") or len(result["key_ms"]) < len(spec.get("keys", [])):
        result["output"] = out[-2000:].decode("utf-8", "replace")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
