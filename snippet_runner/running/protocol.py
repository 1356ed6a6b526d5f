"""The messages between the build and the worker, one dataclass each, sent as one JSON line.

Dataclasses, not dicts, so a field added on one side is seen on the other (or fails at once);
JSON, not pickle, as a worker may die mid-write and later engine versions read the cache.

**Nothing is taken on trust.** Every line and cache entry, size-bounded by the caller, is parsed
against its message's exact shape (:func:`loads`): each field of its type and grammar (a
picture's down to each node's id, :mod:`snippet_runner.pictures.data`), nothing missing, nothing
more; else :class:`ProtocolError`, naming the field. The child reports on itself only through a
:class:`SelfReport`, which names no id: the worker binds it to the run it started.
"""

from __future__ import annotations

import json
import math
import types
import typing
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from typing import Annotated

from snippet_runner.pictures.data import IDENTIFIER, SCHEMAS, PictureData, Text
from snippet_runner.running.settings import LIMITS, Limits

TypeName = Annotated[str, Text(IDENTIFIER)]
SAID = 10_000  # characters of an exception's message, or a picture's, the child sends (and the build reads)
Said = Annotated[str, Text(r"(?s).*", SAID)]
QualifiedName = Annotated[str, Text(rf"{IDENTIFIER}(\.({IDENTIFIER}|<locals>))*", 1000)]  # mod.f.<locals>.Boom


@dataclass(frozen=True)
class RunRequest:
    """Run one snippet: its cells in order, in one namespace, as ``python <path>`` would."""

    id: int
    path: str  # absolute
    cells: tuple[tuple[int, str], ...]  # (first line in the file, source)
    limits: Limits
    pictures: tuple[tuple[str, int, dict], ...] = ()  # (kind, setting's line, options) each


@dataclass(frozen=True)
class RaisedError:
    """The exception a snippet ended with."""

    type: TypeName
    qualified: QualifiedName  # module.QualName, so a declaration may name either
    message: Said
    line: int | None  # innermost line of the snippet itself, if it is in the traceback


@dataclass(frozen=True)
class Picture:
    """A picture captured from the run (:mod:`snippet_runner.pictures.record`): its data, not its drawing."""

    kind: str  # a name in data.SCHEMAS, draw.DRAWERS and record.RECORDERS: "graph", "curves"
    line: int  # the line of its setting, for messages and for the notebook cell it belongs to
    data: PictureData  # what is approved (<snippet>.pictures.json) and drawn


@dataclass(frozen=True)
class RunResult:
    """What one run printed, cell by cell, and how it ended. This is what the cache keeps."""

    id: int
    outputs: tuple[str, ...]
    error: RaisedError | None
    seconds: float
    peak_rss_growth_kb: int
    # (cell, byte offset in its output, snippet line) where each print began: who printed a bad value
    printed_at: tuple[tuple[int, int, int], ...] = ()
    pictures: tuple[Picture, ...] = ()  # one per picture setting
    picture_errors: tuple[tuple[int, Said], ...] = ()  # (setting's line, message) for one it could not satisfy
    limits: tuple[str, ...] = ()  # the sandbox's limits it ran into: (LIMITS)


@dataclass(frozen=True)
class SelfReport:
    """The child's account of its run, read once it is gone. Untrusted: the snippet may have written it."""

    ends: tuple[int, ...]  # the capture's byte offset at the end of each cell that ran
    error: RaisedError | None
    printed_at: tuple[tuple[int, int, int], ...]
    pictures: tuple[Picture, ...]
    picture_errors: tuple[tuple[int, Said], ...]


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


class ProtocolError(ValueError):
    """A line, report or cache entry that is not exactly one of these messages."""


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


_hints = cache(lambda cls: typing.get_type_hints(cls, include_extras=True))
_shape = cache(lambda hint: (typing.get_origin(hint), typing.get_args(hint)))


def _build(cls, data):
    """``cls`` from ``data``, each field checked against its annotation (:func:`_typed`)."""
    _need(type(data) is dict, f"{cls.__name__}: not an object")
    names = {f.name for f in fields(cls)}
    if set(data) != names:
        raise ProtocolError(f"{cls.__name__}: fields {_keys(data)} instead of {sorted(names)}")
    hints = _hints(cls)
    if cls is Picture:  # its data by its kind's schema; an unknown kind is no picture
        kind = data["kind"]
        _need(type(kind) is str and kind in SCHEMAS, f"Picture.kind: {str(kind)[:40]!r} is no kind of picture")
        hints = {**hints, "data": SCHEMAS[kind]}
    built = cls(**{name: _typed(hint, data[name], f"{cls.__name__}.{name}") for name, hint in hints.items()})
    _need(cls is not RunResult or all(n in LIMITS for n in built.limits), f"{cls.__name__}.limits: an unknown limit")
    return built


def _keys(data: dict) -> str:
    return repr(sorted(str(key)[:40] for key in data)[:20])


def _record(hint, value, what: str) -> dict:
    """``value``, a ``TypedDict``'s: its required keys, perhaps its others, each of its type."""
    _need(type(value) is dict, f"{what}: not an object")
    hints = _hints(hint)  # data.py has no postponed annotations, so a TypedDict knows its required keys
    if not hint.__required_keys__ <= value.keys() <= hints.keys():
        raise ProtocolError(f"{what}: keys {_keys(value)}")
    for key, item in value.items():
        _item(hints[key], item, what, key)
    return value  # as it came: checked, not converted (an approved file shows 1, not 1.0)


def _item(hint, value, what: str, at: str | int) -> None:
    """Check a part of a picture's data, naming its place (a key, an index) only if it fails: most pass."""
    try:
        _typed(hint, value, what)
    except ProtocolError as error:
        where = f"[{at}]" if type(at) is int else f".{at}"
        raise ProtocolError(f"{what}{where}{str(error)[len(what) :]}") from None


def _typed(hint, value, what: str):
    """``value`` as ``hint``: a tuple from a list, a finite float, exactly an int, str or bool (``true``
    is no id), a string of its grammar; a picture's lists and dicts are checked and kept as they came."""
    if hint is int or hint is str or hint is bool:  # first: most values are
        if type(value) is not hint:
            raise ProtocolError(f"{what}: not a {hint.__name__}")
        return value
    if hint is float:
        _need(type(value) in (int, float) and math.isfinite(value), f"{what}: not a number")
        return float(value)
    origin, args = _shape(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            _need(type(None) in args, f"{what}: not a value")
            return None
        failed = []
        for arg in args:
            try:
                return _typed(arg, value, what)
            except ProtocolError as error:
                failed.append(str(error))
        # say why by the arm it came closest to: not a wrong kind or type at the top, the deepest field
        raise ProtocolError(max(failed, key=lambda why: ("not one of" not in why, len(why.split(": ")[0]))))
    if origin is Annotated:  # a str of its grammar (data.Text), a picture's data whole (data.SCHEMAS)
        value = _typed(args[0], value, what)
        for why in filter(None, (check(value) for check in args[1:])):
            raise ProtocolError(f"{what}: {why}")
        return value
    if origin is list:
        _need(type(value) is list, f"{what}: not a list")
        for index, item in enumerate(value):
            _item(args[0], item, what, index)
        return value
    if origin is tuple:
        _need(type(value) is list, f"{what}: not a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_typed(args[0], item, what) for item in value)
        _need(len(value) == len(args), f"{what}: wrong shape")
        if all(type(item) is arg for arg, item in zip(args, value, strict=True)):
            return tuple(value)  # a row of plain values (the common case, fast)
        return tuple(_typed(arg, item, what) for arg, item in zip(args, value, strict=True))
    if origin is typing.NotRequired:
        return _typed(args[0], value, what)
    if origin is typing.Literal:
        _need(type(value) is str and value in args, f"{what}: not one of {list(args)}")  # all ours are str
        return value
    if typing.is_typeddict(hint):
        return _record(hint, value, what)
    if is_dataclass(hint):
        return _build(hint, value)
    if hint is dict or origin is dict:
        hint = dict
    _need(type(value) is hint, f"{what}: not a {getattr(hint, '__name__', hint)}")
    return value
