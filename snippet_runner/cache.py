"""A content-addressed cache of run results, so an unchanged snippet never runs twice.

Like jupyter-cache and sphinx-gallery, the key is a hash of what decides the output: the snippet's
bytes, the bytes of every local module it imports, the Python and torch versions, and the engine
itself (the source of the modules that run inside the worker). Nothing time-based: a cache entry is
valid exactly as long as its inputs are unchanged. Those two projects key a whole notebook or
gallery example and their stores are tied to their own runners, so neither could be reused here.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from snippet_runner.spec import Snippet

_ENGINE_MODULES = ("worker.py", "capture.py", "isolation.py", "spec.py", "cache.py")


@lru_cache(maxsize=None)
def environment_fingerprint(preload: tuple[str, ...]) -> str:
    """Python, the preloaded libraries' versions and the engine's own source, hashed once."""
    digest = hashlib.sha256()
    digest.update(platform.python_version().encode())
    for name in preload:
        try:
            digest.update(f"{name}=={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}==?".encode())
    here = Path(__file__).parent
    for module in _ENGINE_MODULES:
        digest.update((here / module).read_bytes())
    return digest.hexdigest()


def key_for(snippet: Snippet, preload: tuple[str, ...]) -> str:
    digest = hashlib.sha256(environment_fingerprint(preload).encode())
    digest.update(snippet.rel.encode())
    digest.update(snippet.source.encode())
    for module in snippet.local_modules:
        digest.update(module.name.encode())
        digest.update(module.read_bytes())
    return digest.hexdigest()


class ResultCache:
    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, result: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, path)  # readers never see a half-written entry
