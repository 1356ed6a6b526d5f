"""What "the same output" means, defined once for the build, approval, ``verify`` and ``make drift``, and the approved
files it is held against: ``<snippet>.out`` (plain text, for a reviewer) and ``<snippet>.pictures.json``.

Two outputs are the same when their text is, or differs only in the torch build label (``BUILD``). Given a relative
tolerance (``verify --rtol``), two whose text differs only in numbers, each within that tolerance of the approved one,
are *close*: what a reader sees on a GPU or another BLAS, where the last digits move. The build never passes a
tolerance.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from snippet_runner.running.snippet import read_text

# The torch build an output names (``2.13.0+cpu``, ``2.13.0+cu130``) describes the environment, not what
# torch computed, so outputs are also compared without that local label (PEP 440). Only a letter-led
# label after three numbers is set aside: ``1.5+2.5`` stays a sum, and ``2.14.0`` is not ``2.13.0``.
BUILD = re.compile(r"(?<![\w.])(\d+\.\d+\.\d+)(\+[A-Za-z][A-Za-z0-9.]*)?")
# A number a run computed; a version's dotted parts (``2.13.0``) are words, never close to another
NUMBER = re.compile(r"(?<![\d.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![.\d]*\d)")
SAME, CLOSE, DIFFERS = "same", "close", "differs"


@dataclass(frozen=True)
class Verdict:
    approved: bool
    missing: bool = False
    diff: str = ""
    builds: str = ""  # approved as another build of the same release: which build each names
    close: bool = False  # approved only within a tolerance: some number differs (``diff`` shows which)
    parts: tuple[Verdict, ...] = ()  # when :func:`merged`: the output's verdict, then the pictures'

    @property
    def kind(self) -> str:
        return CLOSE if self.close else SAME if self.approved else DIFFERS


def same(expected: str, actual: str, names: tuple[str, str], rtol: float = 0.0) -> Verdict:
    """Whether ``actual`` is ``expected``: the one rule; ``names`` head the diff."""
    if expected == actual:
        return Verdict(approved=True)
    if release_only(expected) == release_only(actual):
        return Verdict(approved=True, builds=_builds(expected, actual))
    diff = unified(expected, actual, *names)
    if rtol and _close(expected, actual, rtol):
        return Verdict(approved=True, close=True, diff=diff)
    return Verdict(approved=False, diff=diff)


def _close(expected: str, actual: str, rtol: float) -> bool:
    """The same text between the numbers (runs of spaces aside: a column may widen) and each number
    within ``rtol`` of the approved one."""
    one, two = NUMBER.split(release_only(expected)), NUMBER.split(release_only(actual))
    if len(one) != len(two) or any(re.sub(" +", " ", a) != re.sub(" +", " ", b) for a, b in zip(one, two)):
        return False
    pairs = zip(NUMBER.findall(release_only(expected)), NUMBER.findall(release_only(actual)))
    return all(a == b or math.isclose(float(a), float(b), rel_tol=rtol) for a, b in pairs)


def release_only(text: str) -> str:
    """``text`` with each version's build label (``BUILD``) left out: what outputs are compared by."""
    return BUILD.sub(r"\1", text)


def _builds(expected: str, actual: str) -> str:
    """``"2.13.0+cu130 (approved under 2.13.0+cpu)"``, from the lines where the two differ."""
    pairs = [(a, e) for e, a in zip(expected.splitlines(), actual.splitlines(), strict=True) if e != a]
    here = sorted({m[0] for a, _ in pairs for m in BUILD.finditer(a)})
    there = sorted({m[0] for _, e in pairs for m in BUILD.finditer(e)})
    return f"{', '.join(here)} (approved under {', '.join(there)})"


def compare(expected_path: Path, actual: str, display_name: str, rtol: float = 0.0) -> Verdict:
    """``actual`` held against the approved file (:func:`same`)."""
    try:
        expected = read_text(expected_path, display_name)
    except FileNotFoundError:
        return Verdict(approved=False, missing=True)
    return same(expected, actual, (f"{display_name} (approved)", f"{display_name} (this build)"), rtol)


def unified(first: str, second: str, fromfile: str, tofile: str) -> str:
    """A unified diff whose every line ends with a newline, even where the text did not."""
    lines = difflib.unified_diff(first.splitlines(keepends=True), second.splitlines(keepends=True), fromfile, tofile)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write(expected_path: Path, actual: str) -> bool:
    """Approve ``actual``; return whether the file changed (not when only the build it names did)."""
    with contextlib.suppress(FileNotFoundError):
        if same(expected_path.read_bytes().decode("utf-8"), actual, ("", "")).approved:
            return False
    expected_path.write_text(actual, encoding="utf-8")
    return True


def pictures_text(pictures) -> str:
    """A run's pictures as approved ("" if none): one node, edge or series a line, so a diff shows what changed."""
    return _readable([picture.data for picture in pictures]) + "\n" if pictures else ""


def _readable(value, indent: str = "") -> str:
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_readable(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}" if items else "{}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [inner + (_readable(v, inner) if isinstance(v, dict) and indent == "" else _line(v)) for v in value]
        return "[\n" + ",\n".join(items) + f"\n{indent}]"
    return _line(value)


def _line(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def compare_pictures(expected_path: Path, actual: str, display_name: str, rtol: float = 0.0) -> Verdict:
    """Like :func:`compare`; no pictures and no approved file is approved too."""
    if not expected_path.exists():
        return Verdict(approved=not actual, missing=bool(actual))
    return compare(expected_path, actual, display_name, rtol)


def write_pictures(expected_path: Path, actual: str) -> bool:
    """Approve a run's pictures (remove the file when it showed none); return whether it changed."""
    if actual:
        return write(expected_path, actual)
    existed = expected_path.exists()
    expected_path.unlink(missing_ok=True)
    return existed


def merged(output: Verdict, pictures: Verdict) -> Verdict:
    """One verdict for the output and the pictures (warn mode shows both diffs under one warning)."""
    return Verdict(
        approved=output.approved and pictures.approved,
        missing=output.missing or pictures.missing,
        diff=output.diff + pictures.diff,
        builds=output.builds,
        close=output.close or pictures.close,
        parts=(output, pictures),
    )
