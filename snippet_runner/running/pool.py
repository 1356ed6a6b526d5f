"""The parent side of the worker: send requests, collect results, survive hangs and crashes.

``ProcessPoolExecutor`` and ``multiprocessing.Pool`` cannot stop one hung task without breaking the pool, nor say which
line ran; a Jupyter kernel is slow to start and splits stdout from stderr. Hence framed JSON in, JSON lines out
(:mod:`snippet_runner.running.protocol`). ``submit`` sends at once, so snippets run while MkDocs renders; if the worker
dies, the running request gets the verdict and the others go to a fresh worker. Nothing it sends is trusted: each line
is size-bounded, must be exactly the message due, and must come within a deadline from the snippet's timeout; anything
else kills the worker and raises :class:`WorkerBroke`, naming the snippet.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from snippet_runner import defaults
from snippet_runner.running import isolation, protocol, sandbox, scratch_dirs
from snippet_runner.running.protocol import Death, PreloadFailed, Ready, RunRequest, RunResult, Started
from snippet_runner.running.snippet import Snippet

GRACE_SECONDS = 10.0  # beyond a snippet's timeout, before the worker (which stops children itself) is killed
START_TIMEOUT = 300.0  # importing torch on a cold disk can be slow, but not this slow
_PACKAGE_ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))  # holds snippet_runner/ (issue 42)
IN_FLIGHT = 16  # requests sent to a worker ahead of its answers
QUEUED_BYTES = 48 * 1024  # below a pipe's 64 KB
LINE_LIMIT = 1024**2  # bytes a line may hold beyond six per byte of the running snippet's output
RECYCLE_ABOVE_KB = 2 * 1024 * 1024  # a worker larger than this is replaced between requests


class _WorkerDied(Exception):
    pass


class WorkerBroke(RuntimeError):
    """The worker sent what it must not: it is killed, and the build stops, naming the snippet."""

    def __init__(self, snippet: Snippet | None, why: str):
        self.snippet = snippet
        super().__init__(why)


class PreloadError(RuntimeError):
    """The worker could not import a module it must preload: nothing can run."""

    def __init__(self, failed: PreloadFailed):
        self.failed = failed
        super().__init__(f"the worker could not import {failed.module!r}, which it preloads: {failed.error}")


class _Process:
    def __init__(self, preload: tuple[str, ...], folder: str, env: dict[str, str] | None, python: str | None):
        """A worker whose scratch folder goes in ``folder`` (the runner's), gone with it even if killed."""
        read_fd, write_fd = os.pipe()
        # Never the build's environment: a short allowlist, which keeps OpenBLAS at one thread, so
        # a process that forks holds no thread a child could inherit half-way through a lock.
        env = dict(env or {})
        if python is not None:  # another interpreter (make drift): let it import this engine too
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [
                # issue 42: no caret lines in tracebacks, under every Python (snippet_runner/pythons.py)
                *(python or sys.executable, "-X", "no_debug_ranges", "-m", "snippet_runner.running.worker"),
                *(str(write_fd), ",".join(preload), folder),
            ],
            stdin=subprocess.PIPE,
            env=sandbox.worker_environment(folder, env),
            stdout=subprocess.DEVNULL,
            pass_fds=(write_fd,),
        )
        os.close(write_fd)
        self.fd = read_fd
        self.buffer = b""
        self.spawned = time.perf_counter()

    def send_line(self, line: str) -> None:
        """One message: its length in bytes on a line, then it (the worker reads no further)."""
        stdin = self.proc.stdin
        assert stdin is not None  # the process is started with stdin=PIPE
        data = line.encode()
        with contextlib.suppress(BrokenPipeError):  # noticed as EOF by receive()
            stdin.write(b"%d\n%s" % (len(data), data))
            stdin.flush()

    def receive(self, timeout: float, limit: int) -> protocol.Message | None:
        """The next message within ``timeout``; ``ProtocolError`` for a line over ``limit`` or not one."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if len(self.buffer) > limit:
                raise protocol.ProtocolError(f"a line longer than {limit:,} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise _WorkerDied()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > limit:
            raise protocol.ProtocolError(f"a line longer than {limit:,} bytes")
        return protocol.loads(line, Ready, PreloadFailed, Started, RunResult, Death)

    def rss_kb(self, field: str) -> int:
        """The worker's own size (with namespaces, the child of the process started here); 0 if gone."""
        pid = self.proc.pid
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as children:
            pid = int((children.read().split() or [str(pid)])[0])
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                return next((int(line.split()[1]) for line in status if line.startswith(field + ":")), 0)
        except OSError:
            return 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        isolation.release_cgroup(self.proc.pid)  # and whatever a snippet left running in it
        if self.proc.stdin:
            self.proc.stdin.close()
        os.close(self.fd)


class Runner:
    """Runs snippets in one long-lived worker process; each ticket ends as a result or a death."""

    def __init__(
        self,
        preload: tuple[str, ...] = defaults.PRELOAD,
        env: dict[str, str] | None = None,
        python: str | None = None,
        warm: Callable[[], tuple[str, ...]] | None = None,
    ):
        self.preload = preload
        self.warm = warm  # what a worker warms (warmup.py), asked each time one starts
        self.env = env  # extra environment for the worker (make accept varies PYTHONHASHSEED)
        self.python = python  # the worker's interpreter; None: this one (sys.executable)
        self._scratch = scratch_dirs.ScratchFolder()  # removed at exit even if close() is never reached
        self._process: _Process | None = None
        self._next_id = 0
        self._pending: OrderedDict[int, tuple[Snippet, RunRequest]] = OrderedDict()
        self._done: dict[int, RunResult | Death] = {}
        self._running: tuple[int, float] | None = None  # (id, time it started)
        self._heard = time.monotonic()  # when the worker last sent a message, or was sent one
        self.broken: WorkerBroke | None = None
        self.import_seconds: float | None = None
        self.import_cpu_seconds: float | None = None
        self.protections_off: tuple[str, ...] = ()  # what the worker's sandbox could not enforce
        self.workers_started = 0
        self.preload_failed: PreloadFailed | None = None
        self._sent: set[int] = set()  # tickets sent to the current worker and not answered yet
        self._unread: dict[int, int] = {}  # tickets sent and not started yet -> their bytes in the pipe

    def warm_up(self) -> None:
        """Start the worker now, so torch is imported before the first request needs it."""
        self._ensure_process()

    def wait_ready(self) -> None:
        """Block until the worker has imported its preloads (the benchmark uses this)."""
        self._ensure_process()
        while self.import_seconds is None:
            if self.broken is not None:
                raise self.broken
            self._pump()

    def submit(self, snippet: Snippet) -> int:
        self._ensure_process()
        self._next_id += 1
        request = RunRequest(
            id=self._next_id,
            path=str(snippet.path),
            cells=tuple((cell.first_line, cell.source) for cell in snippet.cells),
            limits=snippet.limits,
            pictures=tuple((p.kind, p.line, p.options) for p in snippet.pictures),
        )
        self._pending[self._next_id] = (snippet, request)
        self._fill()
        return self._next_id

    def _fill(self) -> None:
        """Keep at most ``IN_FLIGHT`` requests unanswered and ``QUEUED_BYTES`` unread (a longer one
        only to an idle worker): a fuller pipe would block us on a worker waiting for us to read."""
        process = None
        for ticket, (_, request) in self._pending.items():
            if len(self._sent) >= IN_FLIGHT:
                break
            if ticket not in self._sent:
                line = protocol.dumps(request)
                if self._sent and sum(self._unread.values()) + len(line) > QUEUED_BYTES:
                    break
                process = process or self._ensure_process()
                process.send_line(line)
                if not self._sent:
                    self._heard = time.monotonic()
                self._sent.add(ticket)
                self._unread[ticket] = len(line) + 12

    def result(self, ticket: int, also: Sequence[Runner] = ()) -> RunResult | Death:
        """The ticket's result (``PreloadError`` if the worker cannot start); meanwhile it collects
        what the runners in ``also`` finished, so their workers never stall on a full pipe."""
        while ticket not in self._done:
            if self.preload_failed is not None:
                raise PreloadError(self.preload_failed)
            if self.broken is not None:
                raise self.broken
            self._pump()
            for other in also:
                if other is not self and other._process is not None and other._pending:
                    other._pump(timeout=0)
        return self._done.pop(ticket)

    def peak_rss_kb(self) -> int:
        """The largest resident size the current worker reached (VmHWM), 0 if none runs."""
        return self._process.rss_kb("VmHWM") if self._process is not None else 0

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None
        self._scratch.remove()

    def _ensure_process(self) -> _Process:
        if self._process is None:
            process = _Process(self.preload, self._scratch.path, self.env, self.python)
            # its first message: what it warms once its preloads are imported (warmup.py)
            process.send_line(json.dumps(list(self.warm() if self.warm is not None else ())))
            self._process = process
            self.workers_started += 1
        return self._process

    def _pump(self, timeout: float = 0.5) -> None:
        if self.broken is not None:
            return
        self._fill()
        process = self._ensure_process()
        try:
            message = process.receive(timeout=timeout, limit=self._line_limit())
            if message is None:
                self._check_deadline(process)
            else:
                self._take(message, process)
        except _WorkerDied:
            self._on_death(process, timed_out=False)
        except protocol.ProtocolError as error:
            self._break(process, str(error))

    def _line_limit(self) -> int:
        """Six bytes a byte (JSON's ``\\u001b``) of the largest output a sent snippet may print."""
        outputs = [self._pending[ticket][0].limits.output for ticket in self._sent if ticket in self._pending]
        return LINE_LIMIT + 6 * max(outputs, default=0)

    def _take(self, message: protocol.Message, process: _Process) -> None:
        """Act on one message, if it is the one due now; ``ProtocolError`` if not."""
        self._heard = time.monotonic()
        due = next((ticket for ticket in self._pending if ticket in self._sent), None)
        if isinstance(message, Ready | PreloadFailed):
            if self.import_seconds is not None or self.preload_failed is not None:
                raise protocol.ProtocolError(f"a second {type(message).__name__}")
        elif self.import_seconds is None:
            raise protocol.ProtocolError(f"a {type(message).__name__} before the worker was ready")
        if isinstance(message, Ready):
            self.import_seconds = message.import_seconds
            self.import_cpu_seconds = message.import_cpu_seconds
            self.protections_off = message.protections_off
        elif isinstance(message, PreloadFailed):
            self.preload_failed = message  # reported once, by result(); never retried
        elif isinstance(message, Started):
            if self._running is not None or message.id != due:
                raise protocol.ProtocolError(f"a start of request {message.id}, which was not due")
            self._running = (message.id, time.monotonic())
            self._unread.pop(message.id, None)  # the worker has read it
        elif isinstance(message, RunResult | Death):
            if self._running is None or message.id != self._running[0]:
                raise protocol.ProtocolError(f"a result for request {message.id}, which was not running")
            self._running = None
            self._pending.pop(message.id)
            self._sent.discard(message.id)
            self._done[message.id] = message
            if not self._pending and process.rss_kb("VmRSS") > RECYCLE_ABOVE_KB:
                self._drop(process)  # a fork leaves the worker as it was; should it grow anyway, replace it
            self._fill()

    def _drop(self, process: _Process) -> None:
        """Kill the worker; the next request starts another and is sent to it afresh."""
        process.kill()
        self._process, self._sent, self._unread, self.import_seconds = None, set(), {}, None

    def _break(self, process: _Process, why: str) -> None:
        """The worker sent what it must not: kill it, and fail every wait on it."""
        due = next((ticket for ticket in self._pending if ticket in self._sent), None)
        ticket = self._running[0] if self._running is not None else due
        snippet = self._pending[ticket][0] if ticket is not None and ticket in self._pending else None
        self._drop(process)
        self.broken = WorkerBroke(snippet, why)

    def _check_deadline(self, process: _Process) -> None:
        """Every wait ends: the worker's start within ``START_TIMEOUT``, a request's start within
        ``GRACE_SECONDS`` of the last message, its result within its timeout and the grace."""
        now = time.monotonic()
        if self._running is not None:
            ticket, started = self._running
            late = now - started > self._pending[ticket][0].limits.timeout + GRACE_SECONDS
        elif self.import_seconds is None:
            late = time.perf_counter() - process.spawned > START_TIMEOUT
        else:
            late = bool(self._sent) and now - self._heard > GRACE_SECONDS
        if late:
            self._on_death(process, timed_out=True)

    def _on_death(self, process: _Process, timed_out: bool) -> None:
        self._drop(process)
        if self.preload_failed is not None:
            return  # it exited because it cannot start; starting another would fail the same way
        if self._running is not None:
            ticket, _ = self._running
        elif self._pending:
            ticket = next(iter(self._pending))  # it died before starting: starting up failed
        else:
            return
        self._running = None
        self._pending.pop(ticket)
        self._done[ticket] = Death(id=ticket, timed_out=timed_out, stack="", exit_code=process.proc.returncode)
        self._fill()  # the others never ran: send them afresh to a new worker
