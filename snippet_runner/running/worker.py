"""The worker process: import torch once, then run each snippet in a fork of itself.

``python -m snippet_runner.running.worker RESULT_FD PRELOAD FOLDER`` (``FOLDER`` holds the scratch folder). Each message
on stdin is a line with a length, then that many bytes: first the names to warm (:mod:`snippet_runner.running.warmup`),
then requests, each read just before its fork so the queued ones stay in the pipe, out of any child's reach. Answers go
to ``RESULT_FD``, a JSON line each.

**Why a fork per snippet.** Whatever a snippet changes (a patched ``Tensor.__repr__``, a thread, an open file) dies with
its child. The worker never runs snippet code or torch operations itself, which is what makes forking it safe (no thread
pools to inherit).

**What the worker trusts.** Nothing the child says about another run, nor what it can see itself: once the child (and
all it started) is gone, its output comes from the capture file, its exit status and peak memory from ``wait4``, its
time from the worker's clock, its limits from the kernel. Its own account (exception, cell ends, pictures, prints) is a
size-capped, schema-checked file, bound to the id the worker gave the run. A hang is stopped by faulthandler, which
writes its stack to the capture, or killed at the timeout and a grace. Why: ``dev/decisions/0001`` and ``0007``.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import faulthandler
import gc
import importlib
import json
import os
import select
import signal
import sys
import time
import traceback
import types
from pathlib import Path

from snippet_runner.pictures import record
from snippet_runner.running import protocol, sandbox, warmup
from snippet_runner.running.protocol import Death, PreloadFailed, RaisedError, Ready, RunRequest, RunResult, Started
from snippet_runner.running.terminal import Terminal, terminal_warnings, trimmed_traceback

GRACE_SECONDS = 0.75  # beyond a snippet's timeout, before the worker kills a child faulthandler missed
_real_exit = os._exit  # a snippet may replace os._exit; the child always ends through this one
PR_SET_CHILD_SUBREAPER = 36


def run_forked(request: RunRequest, terminal: Terminal, box: sandbox.Sandbox) -> RunResult | Death:
    """Run ``request`` in a child process; once it and all it started are gone, what it did."""
    terminal.reset()
    box.prepare(request.limits)
    try:
        with open("/proc/self/status", "rb") as lines:  # RssAnon: where the child's peak starts from
            resident_kb = next(int(line.split()[1]) for line in lines if line.startswith(b"RssAnon:"))
        started = time.monotonic()
        pid = box.fork()
        if pid == 0:
            _child(request, terminal, box)  # never returns
        try:
            status, peak_kb, killed = _wait(pid, request.limits.timeout + GRACE_SECONDS)
        except BaseException:  # interrupted (Ctrl-C): take the child down with us
            _kill_group(pid)
            raise
        seconds = time.monotonic() - started
        if box.isolated.pid_namespace is None:
            _kill_group(pid)  # without a PID namespace of its own, what it started lingers
            _kill_orphans()
        captured = terminal.read(request.limits.output + 1)
        hit, unreadable = box.limits_hit(), _NO_REPORT
        try:
            report = box.report()
        except protocol.ProtocolError as error:  # the snippet rewrote what its process records
            report, unreadable = None, f"{_BROKEN}: {error}"
    finally:
        box.release()
    text = captured.decode("utf-8", errors="replace")
    at = max(text.rfind(start) for start in ("Timeout (", "Fatal Python error", "The snippet runner failed"))
    stack = text[at:][-64 * 1024 :] if at >= 0 else ""  # what faulthandler (or _child) wrote last
    timed_out = killed or (seconds >= request.limits.timeout and stack.startswith("Timeout"))
    if "memory" in hit and not timed_out:  # the kernel's OOM killer ended it, or one of its processes
        return RunResult(request.id, (text,), None, seconds, max(peak_kb - resident_kb, 0), limits=hit)
    if report is None or status != 0 or timed_out:
        return Death(request.id, timed_out, stack or unreadable * (status == 0), status)
    ends = [min(end, len(captured)) for end in report.ends[: len(request.cells)]]
    if ends != sorted(ends):
        return Death(request.id, False, _NO_REPORT, status)
    cells = list(zip([0, *ends], ends))
    wanted = {(kind, line) for kind, line, _ in request.pictures}
    return RunResult(
        id=request.id,  # the worker's, never the child's
        outputs=tuple(captured[start:end].decode("utf-8", errors="replace") for start, end in cells),
        error=report.error,
        seconds=seconds,
        peak_rss_growth_kb=max(peak_kb - resident_kb, 0),
        printed_at=tuple(mark for mark in report.printed_at if 0 <= mark[0] < len(cells)),
        pictures=tuple(p for p in report.pictures if (p.kind, p.line) in wanted),
        picture_errors=tuple(e for e in report.picture_errors if any(e[0] == line for _, line in wanted)),
        limits=hit,
    )


_NO_REPORT = "(the snippet's process ended without a readable account of its run)"
_BROKEN = "its process reported a field the build does not accept"  # engine.py says it as it is


def _wait(pid: int, seconds: float) -> tuple[int, int, bool]:
    """Wait at most ``seconds`` for the child, then kill it: exit code (negative: a signal), peak RSS (KB), killed."""
    pidfd = os.pidfd_open(pid)
    try:
        killed = not select.select([pidfd], [], [], seconds)[0]
    finally:
        os.close(pidfd)
    if killed:  # the init of its PID namespace: with it, the kernel kills all in it, whatever group they are in
        _kill_group(pid)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss, killed


def _child(request: RunRequest, terminal: Terminal, box: sandbox.Sandbox) -> None:
    status = 70
    try:
        os.setpgid(0, 0)  # its own process group: whatever it starts can be killed with it
        terminal.attach(Path(request.path))
        box.confine(request.path, request.limits)
        os.closerange(3, 1 << 20)  # nothing of the worker's or the build's: no pipe, no stderr
        box.write_report(run_request(request, terminal))
        status = 0
    except BaseException:  # noqa: BLE001 - reported as a death with this stack
        with contextlib.suppress(OSError):
            os.write(2, ("\nThe snippet runner failed in the child process:\n" + traceback.format_exc()).encode())
    finally:
        _real_exit(status)


def run_request(request: RunRequest, terminal: Terminal) -> protocol.SelfReport:
    path = Path(request.path)
    folder = path.parent
    module = types.ModuleType("__main__")
    namespace = module.__dict__
    namespace.update(__file__=str(path), __builtins__=builtins, __cached__=None)
    sys.modules["__main__"] = module
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    sys.argv = [path.name]
    ends: list[int] = []
    printed_at: list[tuple[int, int, int]] = []
    error = None
    watch = record.Watch(request.pictures, namespace, str(path)) if request.pictures else None
    # A crash or a hang writes the running stack to the capture, as ``python file.py`` shows it
    # (an ``os._exit`` writes none: no documented hook sees it on 3.11).
    faulthandler.enable(file=2, all_threads=False)
    faulthandler.dump_traceback_later(request.limits.timeout, exit=True, file=2)
    for index, (first_line, source) in enumerate(request.cells):
        start = ends[-1] if ends else 0
        terminal.marks.clear()
        with terminal_warnings(folder):
            try:
                exec(compile("\n" * (first_line - 1) + source, str(path), "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001 - a snippet may raise anything, SystemExit too
                text, line = trimmed_traceback(exc, path)
                with contextlib.suppress(OSError):  # at the output limit: the engine reports that instead
                    sys.stderr.write(text)
                cls = type(exc)
                said = str(exc)[: protocol.SAID]
                error = RaisedError(cls.__name__, f"{cls.__module__}.{cls.__qualname__}", said, line)
        ends.append(terminal.offset())
        printed_at += [(index, offset - start, line) for offset, line in terminal.marks]
        if error is not None:
            break
    shown, failed = watch.results() if watch is not None else ([], [])
    return protocol.SelfReport(
        ends=tuple(ends),
        error=error,
        printed_at=tuple(printed_at),
        pictures=tuple(protocol.Picture(p["kind"], p["line"], p["data"]) for p in shown),
        picture_errors=tuple((line, message[: protocol.SAID]) for line, message in failed),
    )


def _kill_group(pid: int) -> None:
    """The child and its process group (which it may have left: without a PID namespace, a sweep follows)."""
    for kill in (os.kill, os.killpg):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):  # back in its own group: an init in another's never finishes exiting
        os.setpgid(pid, pid)


def _kill_orphans() -> None:
    """Without a PID namespace: end what left the snippet's group, re-parented to us (a subreaper)."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as children:
            listed = children.read().split()
    except OSError:
        return
    for pid in map(int, listed):
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _warm_up() -> None:
    """Do once, in the worker, the lazy set-up torch does on a process's first tensor operations (dispatch tables,
    autograd, printing), so each forked child inherits it instead of paying for it again. Only scalar-sized work:
    nothing here starts torch's thread pools, which a fork must not inherit, nor draws from the random generators."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    x = torch.ones(2, requires_grad=True)
    y = (x * 3 + 1) ** 2
    y.sum().backward()
    repr(x.grad), repr(y), str(torch.zeros(1, dtype=torch.int64))


def _next(fd: int) -> bytes | None:
    """The next message on ``fd`` (its length on a line, then it), never read ahead; None at the end."""
    header = b""
    while not header.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte or len(header) > 20:
            return None
        header += byte
    size, data = int(header), b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    isolated = sandbox.isolate_worker()  # first: unshare(CLONE_NEWUSER) needs a single thread
    preload = [name for name in sys.argv[2].split(",") if name] if len(sys.argv) > 2 else []
    results = os.fdopen(int(sys.argv[1]), "w", buffering=1, encoding="utf-8")  # RESULT_FD
    if isolated.pid_namespace is None:
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    started = time.perf_counter()
    for name in preload:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - reported once, as what it is
            results.write(protocol.dumps(PreloadFailed(name, f"{type(exc).__name__}: {exc}"[:4000])) + "\n")
            return
    _warm_up()
    names = _next(0)  # what the snippets will use, sent by now
    if names is None:
        return  # not needed after all: the build found every result in its cache
    warmup.warm(json.loads(names))
    terminal = Terminal()
    box = sandbox.Sandbox(inside=sys.argv[3] if len(sys.argv) > 3 else None, isolated=isolated)
    # The objects the worker holds now (torch's whole Python side) move to a generation the
    # collector never visits, so a collection in a child does not write to every object's header
    # and copy every page of the heap (Python's own advice for forking servers).
    gc.freeze()
    ready = Ready(
        import_seconds=time.perf_counter() - started,
        import_cpu_seconds=time.process_time(),
        protections_off=tuple(isolated.off),
    )
    results.write(protocol.dumps(ready) + "\n")
    try:
        while (line := _next(0)) is not None:
            request = protocol.loads(line, RunRequest)
            assert isinstance(request, RunRequest)
            results.write(protocol.dumps(Started(request.id)) + "\n")
            results.write(protocol.dumps(run_forked(request, terminal, box)) + "\n")
    finally:
        box.close()


if __name__ == "__main__":
    main()
