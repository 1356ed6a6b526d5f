"""Capture what a snippet writes the way a terminal would see it.

``contextlib.redirect_stdout`` loses the interleaving of stdout and stderr and misses what torch's
C++ side writes to descriptors 1 and 2; so both point at one file, with unbuffered Python writers
on them: every byte lands in the order written, from Python or C. Each Python write notes the
snippet line that made it (:attr:`Terminal.marks`), to trace a bad value (a memory address) to it.

Warnings print as ``showwarning`` prints them, but one raised inside torch is attributed to the
innermost snippet line that led to it; tracebacks keep only the snippet's own frames; paths are
relative to the snippet's folder, as ``python file.py`` run there shows them.
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
        sys.stdout = _Marking(1, script, self.marks)
        sys.stderr = _Marking(2, script, self.marks)

    def offset(self) -> int:
        """How far the output has come (C's buffered output flushed first)."""
        _libc.fflush(None)
        return os.lseek(1, 0, os.SEEK_CUR)

    def read(self, limit: int) -> bytes:
        """In the worker: at most ``limit`` bytes of what was written."""
        return os.pread(self._file.fileno(), limit, 0)


class _Marking(io.TextIOWrapper):
    """An unbuffered text stream on a file descriptor that notes the snippet line of each write."""

    def __init__(self, fd: int, script: Path, marks: list[tuple[int, int]]) -> None:
        raw = io.FileIO(fd, "w", closefd=False)
        super().__init__(raw, encoding="utf-8", errors="backslashreplace", write_through=True)
        self.script, self.marks = str(script), marks

    def write(self, text: str) -> int:
        if text:
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != self.script:
                frame = frame.f_back
            if frame is not None and (not self.marks or self.marks[-1][1] != frame.f_lineno):
                self.marks.append((os.lseek(self.fileno(), 0, os.SEEK_CUR), frame.f_lineno))
        return super().write(text)


def _inside(folder: Path, filename: str) -> bool:
    return filename.startswith(str(folder) + os.sep)


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
        sys.stderr.write(warnings.formatwarning(message, category, os.path.relpath(filename, folder), lineno, line))

    with warnings.catch_warnings():  # also resets the "already shown once" registries
        warnings.showwarning = show
        yield


def trimmed_traceback(exc: BaseException, script: Path) -> tuple[str, int | None]:
    """The traceback with only the snippet folder's frames, and the script's innermost line (to name)."""
    folder = script.parent
    te = traceback.TracebackException.from_exception(exc)
    innermost = None
    for part in _chain(te):
        kept = [fs for fs in part.stack if _inside(folder, fs.filename)]
        if part is te:
            innermost = next((fs.lineno for fs in reversed(kept) if fs.filename == str(script)), None)
        for fs in kept:
            fs.filename = os.path.relpath(fs.filename, folder)
        part.stack = traceback.StackSummary.from_list(kept)
    return "".join(te.format()), innermost


def _chain(first: traceback.TracebackException) -> Iterator[traceback.TracebackException]:
    seen = set()
    te: traceback.TracebackException | None = first
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        yield te
        te = te.__cause__ or (None if te.__suppress_context__ else te.__context__)
