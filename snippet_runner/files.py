"""Writing files that others read at the same time, hashing files by content, and finding the npm packages
the engine uses at run time.

Builds run side by side over one cache, so every file one leaves for another appears whole or not at all.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

CHECKOUT = Path(__file__).resolve().parents[1]  # the engine's repository, when it runs from a checkout


def from_npm(installed: Path, package: str) -> Path:
    """An npm package the engine uses at run time: ``installed``, inside the package, in a wheel (setup.py
    copies it there), else ``package`` in a checkout's ``node_modules``, where `npm ci` put it."""
    return installed if installed.is_dir() else CHECKOUT / "node_modules" / package


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write through a temporary file and a rename, so no reader sees half of it; readable by everyone."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def hash_files(digest: _Digest, paths: Iterable[Path], root: Path) -> None:
    """Feed each file's name (relative to ``root``) and bytes to ``digest``, NUL-separated."""
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
