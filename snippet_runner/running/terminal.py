"""Capture what a snippet writes the way a terminal would see it.

``contextlib.redirect_stdout`` only swaps ``sys.stdout``: it loses the interleaving of stdout and
stderr and misses anything torch's C++ side writes to file descriptors 1 and 2. We point both
descriptors at one temporary file and give Python unbuffered writers on them, so every byte lands
in the order it was written, from Python or from C.

Warnings are printed as Python's default ``showwarning`` prints them, with one change: a warning
raised inside torch (or this engine) is attributed to the innermost line of the snippet that led to
it, and every path is shown relative to the snippet's folder, as ``python file.py`` run there shows.
Tracebacks are trimmed the same way, to the snippet's own frames.

Each Python-level write also notes which line of the snippet made it (:attr:`Terminal.marks`), so a
value that must not appear in an output (a memory address) can be traced to the line that printed it.
"""

from __future__ import annotations

import ctypes
import io
import linecache
import os
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

_libc = ctypes.CDLL(None)


def _flush_c_stdio() -> None:
    _libc.fflush(None)


class Terminal:
    """One capture file, made by the worker and reused for every run: the worker empties it before
    each fork (:meth:`reset`) and reads it once the child is gone (:meth:`read`); the child points
    its descriptors 1 and 2 at it (:meth:`attach`) and holds no other."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the terminal
        self.marks: list[tuple[int, int]] = []  # (byte offset, snippet line) where a write began

    def reset(self) -> None:
        self._file.seek(0)
        self._file.truncate()

    def attach(self, script: Path) -> None:
        """In the child: stdin empty, stdout and stderr this file, and Python's streams on them."""
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the child's stdin until it exits
        sys.stdout = _unbuffered(1, script, self.marks)
        sys.stderr = _unbuffered(2, script, self.marks)

    def offset(self) -> int:
        """How far the output has come (C's buffered output flushed first)."""
        _flush_c_stdio()
        return os.lseek(1, 0, os.SEEK_CUR)

    def read(self, limit: int) -> bytes:
        """In the worker: at most ``limit`` bytes of what was written."""
        return os.pread(self._file.fileno(), limit, 0)


class _Marking(io.TextIOWrapper):
    """An unbuffered text stream on a file descriptor that notes the snippet line of each write."""

    script: str | None = None
    marks: list[tuple[int, int]]

    def write(self, text: str) -> int:
        if self.script is not None and text:
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != self.script:
                frame = frame.f_back
            if frame is not None and (not self.marks or self.marks[-1][1] != frame.f_lineno):
                self.marks.append((os.lseek(self.fileno(), 0, os.SEEK_CUR), frame.f_lineno))
        return super().write(text)


def _unbuffered(fd: int, script: Path | None = None, marks: list | None = None) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w", closefd=False)
    stream = _Marking(raw, encoding="utf-8", errors="backslashreplace", write_through=True)
    stream.script = str(script) if script is not None else None
    stream.marks = marks if marks is not None else []
    return stream


def _inside(folder: Path, filename: str) -> bool:
    return filename.startswith(str(folder) + os.sep)


def _shown(folder: Path, filename: str) -> str:
    return os.path.relpath(filename, folder)


@contextmanager
def terminal_warnings(folder: Path) -> Iterator[None]:
    """Print warnings like a terminal, attributed to the snippet's own line."""

    def show(message, category, filename, lineno, file=None, line=None):
        if not _inside(folder, filename):
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and not _inside(folder, frame.f_code.co_filename):
                frame = frame.f_back
            if frame is not None:
                filename, lineno, line = frame.f_code.co_filename, frame.f_lineno, None
        if line is None:
            line = linecache.getline(filename, lineno)
        text = warnings.formatwarning(message, category, _shown(folder, filename), lineno, line)
        sys.stderr.write(text)

    with warnings.catch_warnings():  # also resets the "already shown once" registries
        warnings.showwarning = show
        yield


def trimmed_traceback(exc: BaseException, script: Path) -> tuple[str, int | None]:
    """The traceback with only the frames of files in the snippet's folder, and the innermost
    line of the script itself (the line to name when the error is unexpected)."""
    folder = script.parent
    te = traceback.TracebackException.from_exception(exc)
    innermost = None
    for part in _chain(te):
        kept = [fs for fs in part.stack if _inside(folder, fs.filename)]
        if part is te:
            lines = [fs.lineno for fs in kept if fs.filename == str(script)]
            innermost = lines[-1] if lines else None
        for fs in kept:
            fs.filename = _shown(folder, fs.filename)
        part.stack = traceback.StackSummary.from_list(kept)
    return "".join(te.format()), innermost


def _chain(first: traceback.TracebackException) -> Iterator[traceback.TracebackException]:
    seen = set()
    te: traceback.TracebackException | None = first
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        yield te
        te = te.__cause__ or (None if te.__suppress_context__ else te.__context__)
