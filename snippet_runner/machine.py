"""Facts about the machine and the environment a build runs in, read the one way."""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib import metadata


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, or None where it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def pinned(distributions: Iterable[str]) -> str:
    """``name==version`` for each, ``name==?`` for one not installed: a line for a cache key."""
    return ",".join(f"{name}=={installed_version(name) or '?'}" for name in distributions)


def physical_memory() -> int:
    """The machine's RAM in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
