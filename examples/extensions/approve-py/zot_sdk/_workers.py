"""Worker threads for handlers: a pool that grows on demand, and serial lanes.

Contract: `submit` never blocks and never raises; threads are daemons started lazily (none at
start-up); a lane with one worker runs its tasks one at a time in submission order.
"""
import queue
import threading
import time


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


class Leaders:
    """Reads frames and runs their handlers on a pool of threads that take turns reading.

    The thread that reads a request runs its handler itself, so no hand-off between threads
    sits between a request and its reply. A standby thread takes over reading when a handler
    runs longer than PROMOTE_AFTER seconds, so a slow or waiting handler never stops input
    (a tool may wait for a panel key that only a later frame brings). While requests keep
    coming (for ACTIVE_WINDOW seconds after the last one) the standby checks on its own
    every PROMOTE_AFTER seconds; after that it sleeps until woken.

    `read()` returns the next frame, or None at the end of input. `route(frame)` is called by
    the reading thread, in input order, and returns a callable to run, None when it
    dispatched the frame itself, or STOP to end reading (shutdown). Contract: `run()` returns
    after STOP or the end of input; `wait` awaits running and queued tasks; with every thread
    busy and the pool full, requests queue up while reading goes on.
    """

    STOP = object()
    PROMOTE_AFTER = 0.002
    ACTIVE_WINDOW = 1.0

    def __init__(self, name, max_workers, read, route, on_error):
        self._name = name
        self._max = max(2, int(max_workers))
        self._read = read
        self._route = route
        self._on_error = on_error
        self._cond = threading.Condition(threading.Lock())
        self._backlog = []
        self._threads = 0
        self._idle = 0
        self._sleeping = 0
        self._leader = None
        self._handling_since = None
        self._last_request = float("-inf")
        self._busy = 0
        self._draining = False
        self._stopped = False
        self._done = threading.Event()
        #: True when reading ended on STOP (shutdown), False at the end of input.
        self.stopped_by_request = False

    def run(self):
        """Starts a reader and a standby, and blocks until reading ends."""
        with self._cond:
            self._spawn()
            self._spawn()
        self._done.wait()
        return self.stopped_by_request

    def _spawn(self):
        # Called with the condition held.
        self._threads += 1
        thread = threading.Thread(
            target=self._work, name="%s-%d" % (self._name, self._threads), daemon=True
        )
        thread.start()

    def _work(self):
        me = threading.get_ident()
        while True:
            task = self._next_role(me)
            if task is _EXIT:
                return
            if task is None:
                if not self._lead(me):
                    return
            else:
                self._run(task)

    def _next_role(self, me):
        """Waits for queued work (returned) or for the reader's role (returns None)."""
        with self._cond:
            while True:
                if self._stopped and not self._backlog:
                    self._threads -= 1
                    return _EXIT
                if self._backlog:
                    return self._backlog.pop(0)
                now = time.monotonic()
                since = self._handling_since
                if self._leader is None or (
                    since is not None and now - since >= self.PROMOTE_AFTER
                ):
                    self._leader = me
                    self._handling_since = None
                    return None
                if since is not None:
                    timeout = self.PROMOTE_AFTER - (now - since)
                elif now - self._last_request < self.ACTIVE_WINDOW:
                    timeout = self.PROMOTE_AFTER
                else:
                    timeout = None
                self._idle += 1
                self._sleeping += timeout is None
                self._cond.wait(timeout)
                self._idle -= 1
                self._sleeping -= timeout is None

    def _lead(self, me):
        """Reads while this thread is the reader; False when reading has ended."""
        while True:
            try:
                frame = self._read()
                task = self.STOP if frame is None else self._route(frame)
            except BaseException as error:
                self._on_error(error)
                frame, task = True, None
            if task is None:
                continue
            with self._cond:
                if task is self.STOP:
                    self.stopped_by_request = frame is not None
                    self._stopped = True
                    self._leader = None
                    self._cond.notify_all()
                    self._done.set()
                    return False
                self._busy += 1
                self._last_request = time.monotonic()
                if self._idle == 0:
                    if self._threads >= self._max:
                        self._backlog.append(task)  # all busy: keep reading, run it later
                        continue
                    self._spawn()
                elif self._sleeping:
                    self._cond.notify()  # a standby asleep since the last burst: start timing
                self._handling_since = self._last_request
            self._run(task)
            with self._cond:
                if self._leader != me:
                    return True  # a standby took over reading meanwhile
                self._handling_since = None

    def _run(self, task):
        try:
            task()
        except BaseException as error:  # a task must never kill its thread
            self._on_error(error)
        finally:
            with self._cond:
                self._busy -= 1
                if self._busy == 0 and self._draining:
                    self._cond.notify_all()

    def wait(self, timeout):
        """Waits up to `timeout` seconds for running and queued tasks; True if they finished."""
        with self._cond:
            self._draining = True
            return self._cond.wait_for(lambda: self._busy == 0, timeout)


_EXIT = object()
