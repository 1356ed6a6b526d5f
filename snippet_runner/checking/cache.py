"""A content-addressed cache of run results, so an unchanged snippet never runs twice.

The key hashes what decides the output: the snippet's bytes and its local modules', the Python and preloaded packages'
versions, and the code that runs it (every file under ``running/``, listed so a new one cannot be left out, and the
picture recorder). Code that only reads results is not in it, so editing it re-runs nothing; nothing is time-based.
(jupyter-cache and sphinx-gallery key whole notebooks and tie their stores to their runners.) An entry holds its key
beside the result and is read back through the worker's exact schema: one that does not parse, or has another key, is a
miss, never a crash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import platform
from functools import cache
from pathlib import Path

from snippet_runner.files import hash_files, write_atomic
from snippet_runner.machine import pinned
from snippet_runner.running import protocol
from snippet_runner.running.protocol import RunResult
from snippet_runner.running.snippet import Snippet

PACKAGE_DIR = Path(__file__).parent.parent
RUN_SOURCES = ("running", "pictures/record.py", "pictures/data.py")  # what runs in the worker and its forks
log = logging.getLogger("mkdocs.plugins.snippet_runner.checking.cache")  # shown by MkDocs, and by logging elsewhere


def engine_sources(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """Every source file that runs a snippet, in a stable order."""
    paths = [package_dir / rel for rel in RUN_SOURCES]
    return sorted({file for path in paths for file in (path.rglob("*.py") if path.is_dir() else [path])})


@cache
def environment_fingerprint(preload: tuple[str, ...], package_dir: Path = PACKAGE_DIR) -> str:
    """Python, the preloaded libraries' versions and the source that runs snippets, hashed once."""
    digest = hashlib.sha256(platform.python_version().encode())
    digest.update(pinned(preload).encode())
    hash_files(digest, engine_sources(package_dir), package_dir)
    return digest.hexdigest()


def key_for(snippet: Snippet, preload: tuple[str, ...]) -> str:
    digest = hashlib.sha256((environment_fingerprint(tuple(preload)) + snippet.rel + snippet.source).encode())
    for module in snippet.local_modules:
        digest.update(module.name.encode() + module.read_bytes())
    return digest.hexdigest()


class ResultCache:
    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str, rel: str = "") -> RunResult | None:
        """The stored result, or None; an entry not readable as this key's is discarded with a notice."""
        path = self._path(key)
        try:
            entry = json.loads(path.read_bytes())
            if type(entry) is not dict or entry.get("key") != key or set(entry) != {"key", "result"}:
                raise protocol.ProtocolError("not this key's entry")
            return protocol.result_from_dict(entry["result"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as error:  # ProtocolError and JSON's errors are ValueErrors
            with contextlib.suppress(OSError):
                path.unlink()
            log.info(f"discarded an unreadable cache entry for {rel or key} ({type(error).__name__}); it runs again")
            return None

    def put(self, key: str, result: RunResult) -> None:
        """Store ``result``; a cache that cannot take it (a folder in its place) only costs a rerun."""
        try:  # vars: as dataclasses.asdict, without its deep copy
            write_atomic(self._path(key), json.dumps({"key": key, "result": result}, default=vars))
        except OSError as error:
            log.info(f"could not cache the result under {key[:12]} ({type(error).__name__}); it runs again next time")
