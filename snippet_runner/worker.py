"""The worker process: import torch once, then run snippet after snippet as ``__main__`` scripts.

Started by :mod:`snippet_runner.pool` as ``python -m snippet_runner.worker RESULT_FD PRELOAD``. It
reads one JSON request per line on stdin and answers with JSON lines on ``RESULT_FD`` (a pipe of its
own, because file descriptors 1 and 2 belong to the snippets while they run).

A snippet that hangs is stopped by ``faulthandler.dump_traceback_later(exit=True)``: it dumps every
thread's stack to a file and ends the process, so the parent can name the line that was running.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import json
import os
import resource
import sys
import time
import types
from pathlib import Path

from snippet_runner.capture import Terminal, terminal_warnings, trimmed_traceback
from snippet_runner.isolation import isolated


def run_request(request: dict, terminal: Terminal) -> dict:
    path = Path(request["path"])
    folder = path.parent
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=str(path), __builtins__=builtins, __cached__=None)
    outputs: list[str] = []
    error = None
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with open(request["dump"], "w") as dump, isolated(folder, path):
        sys.modules["__main__"] = module
        faulthandler.dump_traceback_later(request["timeout"], exit=True, file=dump)
        try:
            for first_line, source in request["cells"]:
                with terminal.capture(), terminal_warnings(folder):
                    error = _run_cell(source, first_line, path, module.__dict__)
                outputs.append(terminal.text())
                if error is not None:
                    break
        finally:
            faulthandler.cancel_dump_traceback_later()
    return {
        "id": request["id"],
        "outputs": outputs,
        "error": error,
        "seconds": time.perf_counter() - started,
        "peak_rss_growth_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before,
    }


def _run_cell(source: str, first_line: int, path: Path, namespace: dict) -> dict | None:
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


def _describe(exc: BaseException, script: Path) -> dict:
    text, line = trimmed_traceback(exc, script)
    sys.stderr.write(text)
    cls = type(exc)
    return {
        "type": cls.__name__,
        "qualified": f"{cls.__module__}.{cls.__qualname__}",
        "message": str(exc),
        "line": line,
    }


def main() -> None:
    result_fd = int(sys.argv[1])
    preload = [name for name in sys.argv[2].split(",") if name] if len(sys.argv) > 2 else []
    results = os.fdopen(result_fd, "w", buffering=1, encoding="utf-8")
    started = time.perf_counter()
    for name in preload:
        importlib.import_module(name)
    results.write(json.dumps({"ready": True, "import_seconds": time.perf_counter() - started}) + "\n")
    terminal = Terminal()
    for line in sys.stdin:
        request = json.loads(line)
        results.write(json.dumps({"started": request["id"]}) + "\n")
        results.write(json.dumps(run_request(request, terminal)) + "\n")


if __name__ == "__main__":
    main()
