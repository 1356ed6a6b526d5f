"""The messages between the build and the worker, with one shape each.

A request goes to the worker as one JSON line, and a result comes back as one; the cache stores
the same result. Both sides build and read these dataclasses, never string-keyed dicts, so a field
added on one side is a field the other side sees (or a ``TypeError`` at once, not a ``KeyError``
three modules later). JSON and not pickle: a worker may be killed mid-write, and the cache is read
by later engine versions, and a line of JSON that does not parse is simply discarded.
"""

from __future__ import annotations

import json
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
    dump: str  # where the worker writes the stack if it dies (timeout, crash)
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

# -- wire format -----------------------------------------------------------------------------

_KINDS = {cls.__name__: cls for cls in (RunRequest, RunResult, Death, PreloadFailed, Ready, Started)}


def dumps(message: Message) -> str:
    # vars() rather than dataclasses.asdict, which deep-copies every field: a third of a
    # millisecond for a result, in every snippet's process
    return json.dumps({"kind": type(message).__name__, **vars(message)}, default=vars)


def loads(line: str | bytes) -> Message:
    data = json.loads(line)
    return _build(_KINDS[data.pop("kind")], data)


def result_from_dict(data: dict) -> RunResult:
    """A cached result; raises ``TypeError``/``KeyError``/``ValueError`` if it has another shape."""
    return _build(RunResult, dict(data))


def _build(cls, data: dict):
    names = {f.name for f in fields(cls)}
    if set(data) != names:
        raise TypeError(f"{cls.__name__} expects fields {sorted(names)}, got {sorted(data)}")
    if cls is Picture and not isinstance(data["data"], dict):
        raise TypeError("Picture.data must be an object")
    if cls is RunRequest:
        data["cells"] = tuple((int(line), str(source)) for line, source in data["cells"])
        data["pictures"] = tuple((str(kind), int(line), dict(options)) for kind, line, options in data["pictures"])
    elif cls is RunResult:
        data["outputs"] = tuple(str(text) for text in data["outputs"])
        data["printed_at"] = tuple((int(c), int(o), int(n)) for c, o, n in data["printed_at"])
        data["pictures"] = tuple(_build(Picture, dict(p)) for p in data["pictures"])
        data["picture_errors"] = tuple((int(line), str(text)) for line, text in data["picture_errors"])
        data["limits"] = tuple(str(name) for name in data["limits"])
        if data["error"] is not None:
            data["error"] = _build(RaisedError, dict(data["error"]))
    elif cls is Ready:
        data["protections_off"] = tuple(str(text) for text in data["protections_off"])
    return cls(**data)
