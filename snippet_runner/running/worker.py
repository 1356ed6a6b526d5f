"""The worker process: import torch once, then run each snippet in a fork of itself.

Started by :mod:`snippet_runner.running.pool` as ``python -m snippet_runner.running.worker RESULT_FD PRELOAD FOLDER``
(``FOLDER``: the pool's temporary folder, where the snippets' scratch folder goes). Its first line
on stdin is a JSON list of the names :mod:`snippet_runner.running.warmup` warms before the first
fork: read once the preloads are imported, so that the worker imports them while the build reads
its snippets. Then it reads one request per line on stdin and answers on
``RESULT_FD`` (a pipe of its own, because file descriptors
1 and 2 belong to the snippets while they run); :mod:`snippet_runner.running.protocol` says what the lines
hold.

**Why a fork per snippet.** A snippet can leave anything behind: a patched ``torch.Tensor.__repr__``,
``torch.set_default_device("meta")``, a replaced ``builtins.print``, a thread still running, a child
process, an open file. Putting back every such thing by hand cannot be complete (the previous engine
tried, for a list of known settings). A forked child starts from the worker's pristine state, torch
already imported, and everything it changes dies with it, so no snippet can change another's output
or blame. The worker itself never runs snippet code or torch operations, which is also what makes
forking it safe (torch's thread pools are only started in the children).

In the child, :mod:`snippet_runner.running.sandbox` applies the snippet's limits; the child runs the cells
as ``python <file>`` would (as ``__main__``, from the snippet's folder), and writes its result to a
pipe. The worker waits for it, up to the timeout. A snippet that hangs is stopped by
``faulthandler.dump_traceback_later(exit=True)``, which writes the running stack to a file first; a
crash (a segfault, an abort) writes it through ``faulthandler.enable``, and ``os._exit`` is wrapped
to write it too. The worker then reports a :class:`~snippet_runner.running.protocol.Death` with that stack.
Whatever the snippet started is killed when it ends: its process group, and, because the worker is a
child subreaper, any orphan that left the group.

What a fork costs, what was done to make it cheaper and what was tried and left out is in
``dev/decisions/0001-a-fork-per-snippet.md``.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import dataclasses
import faulthandler
import gc
import importlib
import json
import os
import resource
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

GRACE_SECONDS = 3.0  # beyond a snippet's timeout, before the worker kills a child faulthandler missed
_real_exit = os._exit  # a snippet may replace os._exit; the child always ends through this one
PR_SET_CHILD_SUBREAPER = 36


def run_forked(request: RunRequest, terminal: Terminal, box: sandbox.Sandbox) -> str:
    """Run ``request`` in a child process; return its result (or death) as one JSON line.

    The result is returned as soon as the child has written it, while the child is still tearing
    down its copy of the address space, so the build gets it that much sooner; the caller must
    :func:`settle` before the next snippet runs."""
    read_fd, write_fd = os.pipe()
    box.prepare(request.path, request.processes)
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(request, terminal, box, write_fd)  # never returns
    os.close(write_fd)
    try:
        line, timed_out = _read_line(read_fd, request.timeout + GRACE_SECONDS)
    except BaseException:  # interrupted (Ctrl-C): take the child down with us
        _kill_group(pid)
        raise
    finally:
        os.close(read_fd)
    _kill_group(pid)  # the child, and whatever it started that is still in its group
    if line and not timed_out:
        try:
            protocol.loads(line)  # what the worker relays must parse; the snippet holds this pipe too
        except (ValueError, TypeError, KeyError):
            pass
        else:
            _exiting.add(pid)
            return line.decode().rstrip("\n")
    _, status = os.waitpid(pid, 0)
    settle(box)
    stack = Path(request.dump).read_text(encoding="utf-8", errors="replace") if os.path.exists(request.dump) else ""
    return protocol.dumps(
        Death(
            id=request.id,
            timed_out=timed_out or stack.startswith("Timeout"),
            stack=stack,
            exit_code=-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status),
        )
    )


def settle(box: sandbox.Sandbox) -> None:
    """Make sure nothing of the last snippet is left before the next one runs: its process reaped
    (so whatever it started and left its group is re-parented to us, and killed), and its scratch
    folder emptied. The wait is the child's exit, tearing down its address space; the worker has
    already sent the result by then."""
    for pid in list(_exiting):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        _exiting.discard(pid)
    _kill_orphans()
    box.clean()


def _child(request: RunRequest, terminal: Terminal, box: sandbox.Sandbox, result_fd: int) -> None:
    status = 0
    try:
        os.setpgid(0, 0)  # its own process group: whatever it starts can be killed with it
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)  # stdin is the worker's request pipe: a snippet must not read it
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the child's stdin until it exits
        with open(request.dump, "w") as dump:
            box.confine(request.memory, request.output, request.processes, request.disk, request.shm)
            result = run_request(request, terminal, dump)
            hit = box.limits_hit()
            if hit:
                result = dataclasses.replace(result, limits=hit)
        # One line, newline-terminated: the worker reads up to the newline, not to EOF, which only
        # comes once this process has torn down its address space (about 5 ms for torch).
        data = (protocol.dumps(result) + "\n").encode()
        while data:
            data = data[os.write(result_fd, data) :]
    except BaseException:  # noqa: BLE001 - reported as a death with this stack
        status = 70
        with open(request.dump, "a") as dump:
            dump.write("The snippet runner failed in the child process:\n" + traceback.format_exc())
    finally:
        _real_exit(status)


def run_request(request: RunRequest, terminal: Terminal, dump) -> RunResult:
    path = Path(request.path)
    folder = path.parent
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=str(path), __builtins__=builtins, __cached__=None)
    sys.modules["__main__"] = module
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    sys.argv = [path.name]
    outputs: list[str] = []
    printed_at: list[tuple[int, int, int]] = []
    error = None
    watch = _watch(request, module.__dict__, path)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    _stack_on_death(dump, request.timeout)
    for index, (first_line, source) in enumerate(request.cells):
        with terminal.capture(path), terminal_warnings(folder):
            error = _run_cell(source, first_line, path, module.__dict__)
        outputs.append(terminal.text())
        printed_at += [(index, offset, line) for offset, line in terminal.marks]
        if error is not None:
            break
    shown, failed = watch.results() if watch is not None else ([], [])
    return RunResult(
        id=request.id,
        outputs=tuple(outputs),
        error=error,
        seconds=time.perf_counter() - started,
        peak_rss_growth_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before,
        printed_at=tuple(printed_at),
        pictures=tuple(protocol.Picture(p["kind"], p["line"], p["data"]) for p in shown),
        picture_errors=tuple(failed),
    )


def _watch(request: RunRequest, namespace: dict, path: Path):
    """The picture capture the snippet's settings ask for (:class:`snippet_runner.pictures.record.Watch`),
    set up in this child before the snippet runs (``pictures.record`` is a layer below this one)."""
    if not request.pictures:
        return None
    return record.Watch(request.pictures, namespace, str(path))


def _stack_on_death(dump, timeout: float) -> None:
    """From now on, any way this process may end writes the running stack to ``dump``.

    Nothing is undone afterwards: the process ends as soon as it has written its result. In
    particular the timeout's watchdog thread is never cancelled, because cancelling waits for that
    thread to wake up and stop (about a millisecond a snippet on a busy machine); the process's
    exit ends it. (A timeout that falls while the result is written is reported as a timeout.)"""

    def exit_with_stack(status):
        dump.write(f"os._exit({status}) was called\n\n")
        dump.flush()
        faulthandler.dump_traceback(file=dump, all_threads=False)
        _real_exit(status)

    os._exit = exit_with_stack
    faulthandler.enable(file=dump, all_threads=False)
    faulthandler.dump_traceback_later(timeout, exit=True, file=dump)


def _run_cell(source: str, first_line: int, path: Path, namespace: dict) -> RaisedError | None:
    try:
        code = compile("\n" * (first_line - 1) + source, str(path), "exec")
        exec(code, namespace)
    except BaseException as exc:  # noqa: BLE001 - a snippet may raise anything, SystemExit too; we report it
        return _describe(exc, path)
    return None


def _describe(exc: BaseException, script: Path) -> RaisedError:
    text, line = trimmed_traceback(exc, script)
    with contextlib.suppress(OSError):  # the output limit was reached; the engine reports that instead
        sys.stderr.write(text)
    cls = type(exc)
    return RaisedError(type=cls.__name__, qualified=f"{cls.__module__}.{cls.__qualname__}", message=str(exc), line=line)


def _read_line(fd: int, seconds: float) -> tuple[bytes, bool]:
    """The first line the child writes to ``fd`` (b"" if it ends without one), and whether it ran
    out of time first."""
    deadline = time.monotonic() + seconds
    chunks = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return b"", True
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"", False
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks), False


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


_exiting: set[int] = set()  # finished children, killed, not yet reaped


def _kill_orphans() -> None:
    """Processes the snippet started that left its group were re-parented to us: end them.
    The worker starts no processes of its own, so every child it has is such an orphan (the
    snippet's own process is reaped before this runs)."""
    me = os.getpid()
    try:
        fd = os.open(f"/proc/{me}/task/{me}/children", os.O_RDONLY)
    except OSError:
        return
    try:
        listed = os.read(fd, 1 << 16).split()
    finally:
        os.close(fd)
    for pid in map(int, listed):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def _warm_up() -> None:
    """Do once, in the worker, the lazy set-up torch does on a process's first tensor operations
    (dispatch tables, autograd, printing), so each forked child inherits it instead of paying for
    it again (about 40 ms a snippet). Only scalar-sized work: nothing here starts torch's thread
    pools, which a fork must not inherit, and nothing draws from the random number generators."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    x = torch.ones(2, requires_grad=True)
    y = (x * 3 + 1) ** 2
    y.sum().backward()
    repr(x.grad), repr(y), str(torch.zeros(1, dtype=torch.int64))


class _ArenaAllocator(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("alloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]


def _arenas_from_malloc() -> None:
    """Python's small objects (torch's whole Python side: functions, classes, dicts) live in 1 MB
    arenas that CPython maps one by one with ``mmap``, each a mapping too small for a huge page, so
    they stay in 4 KB pages, and every fork copies a page-table entry for each page of them (a good
    share of the worker once torch is imported). Taken from glibc's heap instead, which ``sandbox.FOR_FORKING`` puts in huge
    pages, they are forked for a few hundred entries.

    The hook is CPython's own ``PyObject_SetArenaAllocator``, which takes C functions: ``realloc``
    with a null context is ``malloc``, and ``free`` of that null context does nothing, so an arena
    Python gives back stays allocated. That is what CPython's allocator asks for rarely (an arena
    emptied while others have room), in a process that runs no snippet code itself; a library
    could not do this without C code of its own, and none on PyPI does. ``PYTHONMALLOC=malloc``
    (every object from malloc) did it too, but slowed torch's import more than it saved."""
    libc = ctypes.CDLL(None)
    allocator = _ArenaAllocator(
        None, ctypes.cast(libc.realloc, ctypes.c_void_p).value, ctypes.cast(libc.free, ctypes.c_void_p).value
    )
    ctypes.pythonapi.PyObject_SetArenaAllocator(ctypes.byref(allocator))  # copied by CPython


def _prepare_for_forks() -> _HugePages:
    """Make the worker cheap to fork, once it has imported and warmed up everything.

    * ``gc.freeze()``: the objects the worker holds now (torch's whole Python side) move to a
      generation the collector never visits, so a collection in a child does not write to every
      object's header and copy every page of the heap (Python's own advice for forking servers).
      No collection first: it would delay the first fork (dev/measurements.md) to free a little
      of the memory that every fork shares anyway, and leave holes in the pages it shares.
    * Transparent huge pages (:class:`_HugePages`): much of the memory is in them already, the
      rest is put in later, while the worker waits for work.
    """
    gc.freeze()
    return _HugePages()


_libc = ctypes.CDLL(None, use_errno=True)
_libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
MADV_COLLAPSE = 25  # Linux 6.1


class _HugePages:
    """Back what is left of the worker's heap and anonymous memory in small pages with 2 MB pages,
    a few at a time, when no request is waiting.

    ``fork()`` copies a page-table entry, and the child's exit frees one, for every 4 KB page the
    worker has written: about 200 MB with torch and its warm-up. Where each entry maps 2 MB
    instead, a fork copies a few hundred entries rather than tens of thousands, and a child that
    writes into a huge page gets it split and copies only the 4 KB it touched. On a virtual machine
    whose page tables the host shadows, that is most of what a fork costs.

    Much of it is in huge pages from the start: what glibc's malloc maps, which asks for them
    (``sandbox.FOR_FORKING``) where the system's THP setting is ``madvise`` or ``always``. What is
    left (Python's own arenas, the libraries' data, and every page where THP is ``never``) is
    collapsed here: ``MADV_COLLAPSE`` (Linux 6.1) works whatever the setting, and a kernel that
    refuses changes nothing but speed. Collapsing copies the memory, so it is done only while the
    request pipe is empty (a build reading pages, an author between edits), never while a cold
    build waits for its first results, and all at once after ``FORCE_AFTER`` snippets with no
    pause. Each range is collapsed once: the worker's own writes while a child shares its pages
    split some of it back, and collapsing again cost more than the forks it made cheaper saved
    (dev/measurements.md).
    """

    HUGE = 2 << 20
    STEP = 4 * HUGE  # about 30 ms of the kernel's copying: what a request arriving meanwhile waits at most
    FORCE_AFTER = 128  # snippets run with no pause for it (a cold build of the chapter runs 89)

    def __init__(self) -> None:
        self.steps: list[tuple[int, int]] = []
        try:
            with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
                regions = [line.split() for line in maps]
        except OSError:
            return
        for fields in regions:
            if fields[1] != "rw-p" or (len(fields) > 5 and fields[5] != "[heap]"):
                continue  # only the heap and anonymous memory; files and stacks stay as they are
            low, high = (int(x, 16) for x in fields[0].split("-"))
            start, end = (low + self.HUGE - 1) & ~(self.HUGE - 1), high & ~(self.HUGE - 1)
            self.steps += [(at, min(at + self.STEP, end)) for at in range(start, end, self.STEP)]

    def step(self) -> bool:
        """Collapse the next range; whether any is left."""
        if self.steps:
            start, end = self.steps.pop(0)
            # refused (EINVAL, EAGAIN, or ENOMEM for a range unmapped since): no harm done
            _libc.madvise(start, end - start, MADV_COLLAPSE)
            ctypes.set_errno(0)  # the landlock package reads errno even after a call that succeeded
        return bool(self.steps)

    def finish(self) -> None:
        while self.step():
            pass


class _Requests:
    """The request lines on stdin, read so that the worker can tell when none is waiting, and use
    that time (``idle``)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buffer = b""

    def next(self, idle) -> str | None:
        """The next request line (None at end of input). While none has arrived, ``idle()`` is
        called as long as it says it has more to do; then this blocks."""
        while b"\n" not in self.buffer:
            if not select.select([self.fd], [], [], 0)[0] and idle():
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8")


def main() -> None:
    isolated = sandbox.isolate_worker()  # first: unshare(CLONE_NEWUSER) needs a single thread
    _arenas_from_malloc()  # before torch's import allocates its objects
    for name in sandbox.FOR_FORKING:  # read when this process started; no snippet needs to see it
        os.environ.pop(name, None)
    result_fd = int(sys.argv[1])
    preload = [name for name in sys.argv[2].split(",") if name] if len(sys.argv) > 2 else []
    results = os.fdopen(result_fd, "w", buffering=1, encoding="utf-8")
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    started = time.perf_counter()
    for name in preload:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001 - reported once, as what it is
            results.write(protocol.dumps(PreloadFailed(name, f"{type(exc).__name__}: {exc}")) + "\n")
            return
    _warm_up()
    requests = _Requests(sys.stdin.fileno())
    names = requests.next(idle=lambda: False)  # what the snippets will use, sent by now
    if names is None:
        return  # not needed after all: the build found every result in its cache
    warmup.warm(json.loads(names))
    terminal = Terminal()
    box = sandbox.Sandbox(inside=sys.argv[3] if len(sys.argv) > 3 else None, isolated=isolated)
    huge_pages = _prepare_for_forks()
    ready = Ready(
        import_seconds=time.perf_counter() - started,
        import_cpu_seconds=time.process_time(),
        protections_off=tuple(isolated.off),
    )
    results.write(protocol.dumps(ready) + "\n")
    ran = 0
    try:
        while (line := requests.next(idle=huge_pages.step)) is not None:
            request = protocol.loads(line)
            if not isinstance(request, RunRequest):
                raise TypeError(f"the worker takes run requests, not {type(request).__name__}")
            results.write(protocol.dumps(Started(request.id)) + "\n")
            results.write(run_forked(request, terminal, box) + "\n")
            settle(box)
            ran += 1
            if ran == _HugePages.FORCE_AFTER:
                huge_pages.finish()
    finally:
        settle(box)
        box.close()


if __name__ == "__main__":
    main()
