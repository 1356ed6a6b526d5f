"""The parent side of the worker: send requests, collect results, survive hangs and crashes.

We looked at ``concurrent.futures.ProcessPoolExecutor`` and ``multiprocessing.Pool``: neither can
stop one hung task without breaking the whole pool, and neither tells which line was running.
jupyter_client kernels can be interrupted, but starting one costs about 4 s before torch is even
imported (measured in ../shared/NOTES.md), and they report stdout and stderr as separate streams.
So this is a small hand-written pipe protocol: JSON lines in, JSON lines out.

Requests are pipelined: ``submit`` sends at once, so the worker imports torch and runs snippets
while MkDocs renders other pages. If the worker dies (a hang stopped by faulthandler, a crash),
the request it was running gets the verdict and every other pending request is sent again to a
fresh worker.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict

from snippet_runner.spec import Snippet

GRACE_SECONDS = 5.0  # beyond a snippet's own timeout, before the parent kills a worker itself
START_TIMEOUT = 300.0  # importing torch on a cold disk can be slow, but not this slow
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the folder holding snippet_runner/


class _WorkerDied(Exception):
    pass


class _Process:
    def __init__(self, preload: tuple[str, ...], dump_path: str, python: str | None = None):
        read_fd, write_fd = os.pipe()
        env = None
        if python is not None:  # another interpreter (make drift): let it import this engine too
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen(
            [python or sys.executable, "-m", "snippet_runner.worker", str(write_fd), ",".join(preload)],
            stdin=subprocess.PIPE,
            env=env,
            stdout=subprocess.DEVNULL,
            pass_fds=(write_fd,),
            text=True,
            encoding="utf-8",
        )
        os.close(write_fd)
        self.fd = read_fd
        self.buffer = b""
        self.dump_path = dump_path
        self.spawned = time.perf_counter()

    def send(self, message: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # noticed as EOF by receive()

    def receive(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
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
        return json.loads(line)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdin:
            self.proc.stdin.close()
        os.close(self.fd)


class Runner:
    """Runs snippets in one long-lived worker process; results are plain dicts from the worker."""

    def __init__(self, preload: tuple[str, ...] = ("torch",), python: str | None = None):
        self.preload = preload
        self.python = python  # the worker's interpreter; None: this one (sys.executable)
        self._scratch = tempfile.mkdtemp(prefix="snippet-runner-")
        self._process: _Process | None = None
        self._next_id = 0
        self._pending: OrderedDict[int, tuple[Snippet, dict]] = OrderedDict()
        self._done: dict[int, dict] = {}
        self._running: tuple[int, float] | None = None  # (id, time it started)
        self.import_seconds: float | None = None
        self.workers_started = 0

    def warm_up(self) -> None:
        """Start the worker now, so torch is imported before the first request needs it."""
        self._ensure_process()

    def wait_ready(self) -> None:
        """Block until the worker has imported its preloads (the benchmark uses this)."""
        self._ensure_process()
        while self.import_seconds is None:
            self._pump()

    def submit(self, snippet: Snippet) -> int:
        self._next_id += 1
        request = {
            "id": self._next_id,
            "path": str(snippet.path),
            "cells": [[cell.first_line, cell.source] for cell in snippet.cells],
            "timeout": snippet.timeout,
            "dump": os.path.join(self._scratch, "stack.txt"),
        }
        self._pending[self._next_id] = (snippet, request)
        self._ensure_process().send(request)
        return self._next_id

    def result(self, ticket: int) -> dict:
        while ticket not in self._done:
            self._pump()
        return self._done.pop(ticket)

    def close(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None
        shutil.rmtree(self._scratch, ignore_errors=True)

    # -- internals ---------------------------------------------------------------------------

    def _ensure_process(self) -> _Process:
        if self._process is None:
            self._process = _Process(self.preload, os.path.join(self._scratch, "stack.txt"), self.python)
            self.workers_started += 1
        return self._process

    def _pump(self) -> None:
        process = self._ensure_process()
        try:
            message = process.receive(timeout=0.5)
        except _WorkerDied:
            self._on_death(process, timed_out=False)
            return
        if message is None:
            self._check_deadline(process)
        elif "ready" in message:
            self.import_seconds = message["import_seconds"]
        elif "started" in message:
            self._running = (message["started"], time.monotonic())
        else:
            self._running = None
            self._pending.pop(message["id"], None)
            self._done[message["id"]] = message

    def _check_deadline(self, process: _Process) -> None:
        if self._running is None:
            if self.import_seconds is None and time.perf_counter() - process.spawned > START_TIMEOUT:
                self._on_death(process, timed_out=True)
            return
        ticket, started = self._running
        snippet, _ = self._pending[ticket]
        if time.monotonic() - started > snippet.timeout + GRACE_SECONDS:
            self._on_death(process, timed_out=True)

    def _on_death(self, process: _Process, timed_out: bool) -> None:
        process.kill()
        self._process = None
        stack = ""
        if os.path.exists(process.dump_path):
            with open(process.dump_path, encoding="utf-8", errors="replace") as f:
                stack = f.read()
        if self._running is not None:
            ticket, _ = self._running
        elif self._pending:
            ticket = next(iter(self._pending))  # it died before starting: starting up failed
        else:
            return
        self._running = None
        snippet, _ = self._pending.pop(ticket)
        self._done[ticket] = {
            "id": ticket,
            "died": True,
            "timed_out": timed_out or stack.startswith("Timeout"),
            "stack": stack,
            "exit_code": process.proc.returncode,
            "import_seconds": self.import_seconds,
        }
        self.import_seconds = None
        for _snippet, request in self._pending.values():
            self._ensure_process().send(request)  # the others never ran: retry them afresh
