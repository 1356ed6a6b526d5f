"""Facts about the machine and the environment a build runs in, read the one way."""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, or None where it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def required_version(root: Path, name: str) -> str | None:
    """The version the project's ``requirements.txt`` pins ``name`` to (``name==version``), if it does."""
    requirements = Path(root) / "requirements.txt"
    for line in requirements.read_text(encoding="utf-8").splitlines() if requirements.is_file() else []:
        if line.strip().lower().startswith(f"{name}=="):
            return line.split("==", 1)[1].split("#")[0].strip()
    return None


def pinned(distributions: Iterable[str]) -> str:
    """``name==version`` for each, ``name==?`` for one not installed: a line for a cache key."""
    return ",".join(f"{name}=={installed_version(name) or '?'}" for name in distributions)


def physical_memory() -> int:
    """The machine's RAM in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
