"""Approved outputs: the committed ``<snippet>.out`` files that a fresh run must reproduce.

Like Pydantic's ``--update-examples``, an author changes a snippet, runs ``make accept``, and
reviews the new ``.out`` in the diff. The files are plain text so a reviewer reads them as such.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

MEMORY_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,}\b|\b0x[0-9a-fA-F]{8,}\b")


@dataclass(frozen=True)
class Verdict:
    approved: bool
    missing: bool = False
    diff: str = ""
    changed: bool = False  # in accept mode: the approved file was rewritten


def compare(expected_path: Path, actual: str, display_name: str) -> Verdict:
    try:
        expected = expected_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Verdict(approved=False, missing=True)
    if expected == actual:
        return Verdict(approved=True)
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"{display_name} (approved)",
        tofile=f"{display_name} (this build)",
    )
    return Verdict(approved=False, diff="".join(line if line.endswith("\n") else line + "\n" for line in diff))


def write(expected_path: Path, actual: str) -> bool:
    """Approve ``actual``; return whether the file changed."""
    try:
        if expected_path.read_text(encoding="utf-8") == actual:
            return False
    except FileNotFoundError:
        pass
    expected_path.write_text(actual, encoding="utf-8")
    return True


def memory_address(output: str) -> str | None:
    match = MEMORY_ADDRESS.search(output)
    return match.group(0) if match else None
