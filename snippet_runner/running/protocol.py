"""The messages between the build and the worker, with one shape each.

A request goes to the worker as one JSON line, and a result comes back as one; the cache stores
the same result. Both sides build and read these dataclasses, never string-keyed dicts, so a field
added on one side is a field the other side sees (or a ``TypeError`` at once, not a ``KeyError``
three modules later). JSON and not pickle: a worker may be killed mid-write, and the cache is read
by later engine versions.

**Nothing is taken on trust.** Every line and every cache entry is parsed against its message's
exact shape (:func:`loads`): each field of its type, nothing missing, nothing more, and the caller
bounds its size before it is parsed. Anything else raises :class:`ProtocolError`. The child that
runs a snippet reports about itself only through a :class:`SelfReport` that the worker reads once the
child is gone: it names no id, and the worker binds it to the run it started.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields

from snippet_runner.pictures.data import PictureData


@dataclass(frozen=True)
class RunRequest:
    """Run one snippet: its cells in order, in one namespace, as ``python <path>`` would."""

    id: int
    path: str  # absolute
    cells: tuple[tuple[int, str], ...]  # (first line in the file, source)
    timeout: float
    memory: int  # bytes it may allocate
    output: int  # bytes it may print
    # the pictures to capture from the run: (kind, line of its setting, options) each (spec.PictureSetting)
    pictures: tuple[tuple[str, int, dict], ...] = ()
    processes: int = 128  # processes and threads at once, its own included
    disk: int = 256 * 1024**2  # bytes its scratch folder may hold
    shm: int = 64 * 1024**2  # bytes of /dev/shm


@dataclass(frozen=True)
class RaisedError:
    """The exception a snippet ended with."""

    type: str
    qualified: str  # module.QualName, so a declaration may name either
    message: str
    line: int | None  # innermost line of the snippet itself, if it is in the traceback


@dataclass(frozen=True)
class Picture:
    """A picture captured from the run (:mod:`snippet_runner.pictures.record`): its data, not its drawing."""

    kind: str  # "graph" or "curves"
    line: int  # the line of its setting, for messages and for the notebook cell it belongs to
    data: PictureData  # JSON-ready; what is approved (<snippet>.pictures.json) and drawn


@dataclass(frozen=True)
class RunResult:
    """What one run printed, cell by cell, and how it ended. This is what the cache keeps."""

    id: int
    outputs: tuple[str, ...]
    error: RaisedError | None
    seconds: float
    peak_rss_growth_kb: int
    # (cell, byte offset in that cell's output, snippet line) where a print from the snippet began,
    # so a bad value in the output can be traced to the line that printed it
    printed_at: tuple[tuple[int, int, int], ...] = ()
    pictures: tuple[Picture, ...] = ()  # what the build captured, one per picture setting
    # (line of the setting, message) for a picture setting the run could not satisfy
    picture_errors: tuple[tuple[int, str], ...] = ()
    limits: tuple[str, ...] = ()  # the sandbox's limits it ran into: "processes", "disk", "shm"


@dataclass(frozen=True)
class SelfReport:
    """What the child says about its own run, written to its scratch folder after the snippet's code
    and read by the worker once the child is gone. Untrusted: the snippet may have written it."""

    ends: tuple[int, ...]  # the capture's byte offset at the end of each cell that ran
    error: RaisedError | None
    printed_at: tuple[tuple[int, int, int], ...]
    pictures: tuple[Picture, ...]
    picture_errors: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Death:
    """The worker died while running (or before starting) a request: a timeout or a crash."""

    id: int
    timed_out: bool
    stack: str  # faulthandler's dump, most recent call first
    exit_code: int | None


@dataclass(frozen=True)
class PreloadFailed:
    """The worker could not import a module it was told to preload; it takes no requests."""

    module: str
    error: str


@dataclass(frozen=True)
class Ready:
    """The worker has imported its preloads and takes requests."""

    import_seconds: float
    import_cpu_seconds: float = 0.0  # the worker's CPU time until then (make bench --scale subtracts it)
    protections_off: tuple[str, ...] = ()  # what the sandbox cannot enforce on this machine, and why


@dataclass(frozen=True)
class Started:
    """The worker began running request ``id`` (its timeout counts from here)."""

    id: int


Message = RunRequest | RunResult | Death | PreloadFailed | Ready | Started
LIMITS = ("processes", "disk", "shm")


class ProtocolError(ValueError):
    """A line, report or cache entry that is not exactly one of these messages."""


# -- wire format -----------------------------------------------------------------------------


def dumps(message: Message | SelfReport) -> str:
    # vars() rather than dataclasses.asdict, which deep-copies every field
    return json.dumps({"kind": type(message).__name__, **vars(message)}, default=vars)


def loads(line: str | bytes, *kinds: type) -> Message:
    """The message on ``line``, which must be one of ``kinds``; ``ProtocolError`` otherwise."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f"not JSON ({type(error).__name__})") from None
    _need(type(data) is dict and type(data.get("kind")) is str, "not a message")
    cls = next((k for k in kinds if k.__name__ == data["kind"]), None)
    _need(cls is not None, f"a {str(data['kind'])[:40]!r} message where {'/'.join(k.__name__ for k in kinds)} was due")
    del data["kind"]
    return _build(cls, data)


def result_from_dict(data: object) -> RunResult:
    """A cached result; ``ProtocolError`` if it has any other shape."""
    return _build(RunResult, data)


def _need(ok: bool, why: str) -> None:
    if not ok:
        raise ProtocolError(why)


def _of(kind: type | tuple, value, what: str):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # type(...) in, not isinstance: True is not an int here, and a float must be finite
    _need(type(value) in kinds and (type(value) is not float or math.isfinite(value)), f"{what}: wrong type")
    return value


def _items(value, what: str, each) -> tuple:
    return tuple(each(item) for item in _of(list, value, what))


def _row(value, what: str, *kinds: type) -> tuple:
    _need(type(value) is list and len(value) == len(kinds), f"{what}: wrong shape")
    return tuple(_of(k, v, what) for k, v in zip(kinds, value, strict=True))


def _number(value) -> float:
    return float(_of((int, float), value, "a number"))


def _limit(value) -> str:
    _need(value in LIMITS, "an unknown limit")
    return value


_SHAPES: dict[type, dict] = {
    RunRequest: {
        "id": int,
        "path": str,
        "timeout": _number,
        "memory": int,
        "output": int,
        "processes": int,
        "disk": int,
        "shm": int,
        "cells": lambda v: _items(v, "cells", lambda c: _row(c, "cell", int, str)),
        "pictures": lambda v: _items(v, "pictures", lambda p: _row(p, "picture", str, int, dict)),
    },
    RaisedError: {"type": str, "qualified": str, "message": str, "line": (int, type(None))},
    Picture: {"kind": str, "line": int, "data": dict},
    RunResult: {
        "id": int,
        "seconds": _number,
        "peak_rss_growth_kb": int,
        "outputs": lambda v: _items(v, "outputs", lambda t: _of(str, t, "output")),
        "limits": lambda v: _items(v, "limits", _limit),
    },
    SelfReport: {"ends": lambda v: _items(v, "ends", lambda n: _of(int, n, "end"))},
    Death: {"id": int, "timed_out": bool, "stack": str, "exit_code": (int, type(None))},
    PreloadFailed: {"module": str, "error": str},
    Ready: {
        "import_seconds": _number,
        "import_cpu_seconds": _number,
        "protections_off": lambda v: _items(v, "protections_off", lambda t: _of(str, t, "text")),
    },
    Started: {"id": int},
}
_SELF = {  # what a run result and a self-report share: what the child says about itself
    "error": lambda v: None if v is None else _build(RaisedError, v),
    "printed_at": lambda v: _items(v, "printed_at", lambda r: _row(r, "printed_at", int, int, int)),
    "pictures": lambda v: _items(v, "pictures", lambda p: _build(Picture, p)),
    "picture_errors": lambda v: _items(v, "picture_errors", lambda r: _row(r, "picture_errors", int, str)),
}
_SHAPES[RunResult].update(_SELF)
_SHAPES[SelfReport].update(_SELF)


def _build(cls, data):
    _need(type(data) is dict, f"{cls.__name__}: not an object")
    names = {f.name for f in fields(cls)}
    _need(set(data) == names, f"{cls.__name__}: fields {sorted(map(str, data))[:20]} instead of {sorted(names)}")
    built = {}
    for name, shape in _SHAPES[cls].items():
        plain = isinstance(shape, type | tuple)
        built[name] = _of(shape, data[name], f"{cls.__name__}.{name}") if plain else shape(data[name])
    return cls(**built)
