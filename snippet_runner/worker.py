"""The worker process: import torch once, then run snippet after snippet as ``__main__`` scripts.

Started by :mod:`snippet_runner.pool` as ``python -m snippet_runner.worker RESULT_FD PRELOAD``. It
reads one JSON request per line on stdin and answers with JSON lines on ``RESULT_FD`` (a pipe of its
own, because file descriptors 1 and 2 belong to the snippets while they run).

A snippet that hangs is stopped by ``faulthandler.dump_traceback_later(exit=True)``: it dumps every
thread's stack to a file and ends the process, so the parent can name the line that was running.
A snippet that crashes the process leaves the same kind of dump: ``faulthandler.enable`` writes the
stack on a fatal signal (a segfault, an abort), and ``os._exit`` is wrapped to write it first.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import os
import resource
import sys
import time
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from snippet_runner import messages
from snippet_runner.capture import Terminal, terminal_warnings, trimmed_traceback
from snippet_runner.isolation import isolated
from snippet_runner.messages import RaisedError, Ready, RunRequest, RunResult, Started


def run_request(request: RunRequest, terminal: Terminal) -> RunResult:
    path = Path(request.path)
    folder = path.parent
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=str(path), __builtins__=builtins, __cached__=None)
    outputs: list[str] = []
    error = None
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with open(request.dump, "w") as dump, isolated(folder, path), _stack_on_death(dump, request.timeout):
        sys.modules["__main__"] = module
        for first_line, source in request.cells:
            with terminal.capture(), terminal_warnings(folder):
                error = _run_cell(source, first_line, path, module.__dict__)
            outputs.append(terminal.text())
            if error is not None:
                break
    return RunResult(
        id=request.id,
        outputs=tuple(outputs),
        error=error,
        seconds=time.perf_counter() - started,
        peak_rss_growth_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before,
    )


@contextmanager
def _stack_on_death(dump, timeout: float) -> Iterator[None]:
    """While a snippet runs, any way the process may end writes the running stack to ``dump``."""
    real_exit = os._exit

    def exit_with_stack(status):
        dump.write(f"os._exit({status}) was called\n\n")
        dump.flush()
        faulthandler.dump_traceback(file=dump, all_threads=False)
        real_exit(status)

    os._exit = exit_with_stack
    faulthandler.enable(file=dump, all_threads=False)
    faulthandler.dump_traceback_later(timeout, exit=True, file=dump)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        faulthandler.disable()
        os._exit = real_exit


def _run_cell(source: str, first_line: int, path: Path, namespace: dict) -> RaisedError | None:
    try:
        code = compile("\n" * (first_line - 1) + source, str(path), "exec")
        exec(code, namespace)
    except SystemExit as exc:
        if exc.code in (None, 0):
            return None
        return _describe(exc, path)
    except BaseException as exc:  # noqa: BLE001 - a snippet may raise anything; we report it
        return _describe(exc, path)
    return None


def _describe(exc: BaseException, script: Path) -> RaisedError:
    text, line = trimmed_traceback(exc, script)
    sys.stderr.write(text)
    cls = type(exc)
    return RaisedError(type=cls.__name__, qualified=f"{cls.__module__}.{cls.__qualname__}", message=str(exc), line=line)


def main() -> None:
    result_fd = int(sys.argv[1])
    preload = [name for name in sys.argv[2].split(",") if name] if len(sys.argv) > 2 else []
    results = os.fdopen(result_fd, "w", buffering=1, encoding="utf-8")
    started = time.perf_counter()
    for name in preload:
        importlib.import_module(name)
    results.write(messages.dumps(Ready(import_seconds=time.perf_counter() - started)) + "\n")
    terminal = Terminal()
    for line in sys.stdin:
        request = messages.loads(line)
        results.write(messages.dumps(Started(request.id)) + "\n")
        results.write(messages.dumps(run_request(request, terminal)) + "\n")


if __name__ == "__main__":
    main()
