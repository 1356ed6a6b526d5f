"""The accessibility audit's results, kept outside the clone and reused for a page whose inputs are
all unchanged: what Bazel does for a test whose inputs did not change, here per page.

An audit's result is a function of what Chromium was given: the page's bytes, every file it loaded
(stylesheets, scripts, fonts, pictures), axe-core, the audit's own code (audit.py, layout.py,
pages.py) and options, and the Chromium that ran it. The site is reproducible (test_reproducible.py),
so a fresh clone of an unchanged commit builds the same bytes, and the audit of those bytes on
this machine is the one a previous run made. A page is audited again as soon as any of those
inputs differs; only that page.

Each entry is a manifest, as ccache's direct mode keeps one: the key is the page's own bytes with
everything known before it loads (the code, axe, Chromium, the options); the entry lists every file
of the site the page loaded, with its hash, and holds the results and the screenshots. A lookup
hashes those files again, and reads the entry only if every one is unchanged.

It lives in ``$AUDIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/autograd-part2/audit`` (``~/.cache`` by
default), beside the machine's other caches (uv's, npm's) that make a fresh clone cheap.
``AUDIT_CACHE=0`` audits every page again (and stores nothing). pytest-cache (``--cache``) is per
checkout, so it could not serve a fresh clone; no pytest plugin caches a test's result by the
files a browser loaded, which is what this has to know.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

HERE = Path(__file__).resolve().parent
CODE = ("audit.py", "audit_cache.py", "layout.py", "pages.py", "player.py")  # what decides an audit's result
FORMAT = 1
AUDITED = "audited pages, from the cache"  # each audit test's record_property: [pages, of them cached]
KEEP_DAYS = 30  # an entry no run has used for this long is removed (AuditCache.prune)


def default_dir() -> Path | None:
    """Where the entries live, or None when ``AUDIT_CACHE=0``."""
    if os.environ.get("AUDIT_CACHE", "1") == "0":
        return None
    if os.environ.get("AUDIT_CACHE_DIR"):
        return Path(os.environ["AUDIT_CACHE_DIR"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "autograd-part2" / "audit"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class AuditCache:
    """Results by page, for one site (``site``: the folder its file:// root names) and one setting
    of the audit (``settings``: axe's source, Chromium's version, the options)."""

    folder: Path
    site: Path
    settings: str
    hits: list[str] = field(default_factory=list)  # the pages this run read from the cache
    stored: list[str] = field(default_factory=list)  # the pages it audited and kept

    @classmethod
    def for_site(cls, site: Path, axe: str, chromium_version: str, **options) -> AuditCache | None:
        folder = default_dir()
        if folder is None:
            return None
        code = {name: _digest((HERE / name).read_bytes()) for name in CODE}
        settings = json.dumps(
            {"format": FORMAT, "axe": _digest(axe.encode()), "chromium": chromium_version, "code": code, **options},
            sort_keys=True,
        )
        return cls(folder, Path(site).resolve(), settings)

    def _entry(self, path: str) -> Path:
        page = self.site / path
        key = _digest(self.settings.encode() + b"\0" + path.encode() + b"\0" + page.read_bytes())
        return self.folder / key[:2] / f"{key}.json"

    def _hash_of(self, rel: str) -> str | None:
        file = Path(os.path.normpath(self.site / rel))
        if not file.is_relative_to(self.site) or not file.is_file():
            return None
        return _digest(file.read_bytes())

    def get(self, path: str) -> tuple[dict, dict[tuple, bytes]] | None:
        """The results of ``path``'s audit and its screenshots, if every file it loaded is unchanged."""
        entry = self._entry(path)
        try:
            stored = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if any(self._hash_of(rel) != digest for rel, digest in stored["files"].items()):
            return None
        results = {tuple(key): result for key, result in stored["results"]}
        shots = {tuple(key): base64.b64decode(png) for key, png in stored["screenshots"]}
        self.hits.append(path)
        os.utime(entry)  # used: kept by prune()
        return results, shots

    def prune(self, days: float = KEEP_DAYS) -> None:
        """Remove the entries no run has used for ``days``: those of pages long since changed."""
        oldest = time.time() - days * 86400
        for entry in self.folder.glob("*/*.json"):
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime < oldest:
                    entry.unlink()

    def put(self, path: str, urls: list[str], results: dict, shots: dict[tuple, bytes]) -> None:
        """Keep ``path``'s results, with the hash of every file of the site among ``urls`` (what the
        page requested over its whole audit). A page that asked for anything outside the site is not
        kept: its result depends on more than the site."""
        files = {path: self._hash_of(path)}
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            local = Path(os.path.normpath(unquote(parts.path))) if parts.scheme == "file" else None
            if local is None or not local.is_relative_to(self.site):
                return
            rel = local.relative_to(self.site).as_posix()
            files[rel] = self._hash_of(rel)
        if None in files.values():
            return
        body = {
            "files": files,
            "results": [[list(key), result] for key, result in results.items()],
            "screenshots": [[list(key), base64.b64encode(png).decode()] for key, png in shots.items()],
        }
        entry = self._entry(path)
        entry.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=entry.parent, delete=False, encoding="utf-8") as out:
            json.dump(body, out)
        os.replace(out.name, entry)  # whole or not at all: two workers may store the same page
        self.stored.append(path)
