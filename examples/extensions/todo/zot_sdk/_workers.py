"""Worker threads for handlers: a pool that grows on demand, and serial lanes.

Contract: `submit` never blocks and never raises; threads are daemons started lazily (none at
start-up); a lane with one worker runs its tasks one at a time in submission order.
"""
import queue
import threading


class Workers:
    """Runs submitted callables on up to `max_workers` daemon threads."""

    def __init__(self, name, max_workers, on_error):
        self._name = name
        self._max = max(1, int(max_workers))
        self._on_error = on_error
        self._tasks = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._drained = threading.Condition(self._lock)
        self._unfinished = 0
        self._threads = 0
        self._idle = 0
        self._waiting = 0

    def submit(self, fn, *args):
        with self._lock:
            spawn = self._waiting >= self._idle and self._threads < self._max
            if spawn:
                self._threads += 1
            self._waiting += 1
            self._unfinished += 1
        self._tasks.put((fn, args))
        if spawn:
            thread = threading.Thread(
                target=self._work, name="%s-%d" % (self._name, self._threads), daemon=True
            )
            thread.start()

    def _work(self):
        while True:
            with self._lock:
                self._idle += 1
            fn, args = self._tasks.get()
            with self._lock:
                self._idle -= 1
                self._waiting -= 1
            try:
                fn(*args)
            except BaseException as error:  # a task must never kill its worker
                self._on_error(error)
            finally:
                with self._lock:
                    self._unfinished -= 1
                    if self._unfinished == 0:
                        self._drained.notify_all()

    def wait(self, timeout):
        """Waits up to `timeout` seconds for every submitted task to finish; True if they did."""
        with self._lock:
            return self._drained.wait_for(lambda: self._unfinished == 0, timeout)
