"""Approved outputs: the committed ``<snippet>.out`` (plain text, for a reviewer) and
``<snippet>.pictures.json`` files that a fresh run must reproduce."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from snippet_runner.running.snippet import read_text

MEMORY_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,}\b|\b0x[0-9a-fA-F]{8,}\b")
# id(obj) is the object's address: on 64-bit Linux, 2**40 to 2**47, 13 to 15 decimal digits.
DECIMAL_ADDRESS = re.compile(r"(?<![\d.])\d{13,15}(?![\d.])")
# The torch build an output names (``2.13.0+cpu``, ``2.13.0+cu130``) describes the environment, not what
# torch computed, so outputs are also compared without that local label (PEP 440). Only a letter-led
# label after three numbers is set aside: ``1.5+2.5`` stays a sum, and ``2.14.0`` is not ``2.13.0``.
BUILD = re.compile(r"(?<![\w.])(\d+\.\d+\.\d+)(\+[A-Za-z][A-Za-z0-9.]*)?")


@dataclass(frozen=True)
class Verdict:
    approved: bool
    missing: bool = False
    diff: str = ""
    builds: str = ""  # approved as another build of the same release: which build each names


def release_only(text: str) -> str:
    """``text`` with each version's build label (``BUILD``) left out: what outputs are compared by."""
    return BUILD.sub(r"\1", text)


def _builds(expected: str, actual: str) -> str:
    """``"2.13.0+cu130 (approved under 2.13.0+cpu)"``, from the lines where the two differ."""
    pairs = [(a, e) for e, a in zip(expected.splitlines(), actual.splitlines(), strict=True) if e != a]
    here = sorted({m[0] for a, _ in pairs for m in BUILD.finditer(a)})
    there = sorted({m[0] for _, e in pairs for m in BUILD.finditer(e)})
    return f"{', '.join(here)} (approved under {', '.join(there)})"


def compare(expected_path: Path, actual: str, display_name: str) -> Verdict:
    try:
        expected = read_text(expected_path, display_name)
    except FileNotFoundError:
        return Verdict(approved=False, missing=True)
    if expected == actual:
        return Verdict(approved=True)
    if release_only(expected) == release_only(actual):
        return Verdict(approved=True, builds=_builds(expected, actual))
    return Verdict(
        approved=False, diff=unified(expected, actual, f"{display_name} (approved)", f"{display_name} (this build)")
    )


def unified(first: str, second: str, fromfile: str, tofile: str) -> str:
    """A unified diff whose every line ends with a newline, even where the text did not."""
    lines = difflib.unified_diff(first.splitlines(keepends=True), second.splitlines(keepends=True), fromfile, tofile)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def write(expected_path: Path, actual: str) -> bool:
    """Approve ``actual``; return whether the file changed (not when only the build it names did)."""
    try:
        if release_only(expected_path.read_bytes().decode("utf-8")) == release_only(actual):
            return False
    except FileNotFoundError:
        pass
    expected_path.write_text(actual, encoding="utf-8")
    return True


def memory_address(outputs: tuple[str, ...]) -> tuple[int, int, str] | None:
    """The first memory address printed: (cell, byte offset in that cell's output, the text)."""
    for cell, output in enumerate(outputs):
        found = [m for m in MEMORY_ADDRESS.finditer(output)]
        found += [m for m in DECIMAL_ADDRESS.finditer(output) if 2**40 <= int(m.group(0)) < 2**47]
        if found:
            first = min(found, key=lambda m: m.start())
            return cell, len(output[: first.start()].encode()), first.group(0)
    return None


# -- pictures: their data, one node, edge or series per line for a diff; none shown, no file --------


def pictures_text(pictures) -> str:
    """The approved form of a run's pictures (``messages.Picture``s): "" when there are none."""
    if not pictures:
        return ""
    return _readable([picture.data for picture in pictures]) + "\n"


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


def compare_pictures(expected_path: Path, actual: str, display_name: str) -> Verdict:
    """Like :func:`compare`; no pictures and no approved file is approved too."""
    if not expected_path.exists():
        return Verdict(approved=not actual, missing=bool(actual))
    return compare(expected_path, actual, display_name)


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
    )
