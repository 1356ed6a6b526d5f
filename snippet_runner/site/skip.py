"""Whether a build would only write the ``site/`` already there. MkDocs renders every page when nothing changed (issue
8), and ``--dirty`` misses a page whose snippet, template or setting changed; make and doit go by timestamps, which a
checkout changes. So the unit is the whole build: when the key of all it reads (by content: project files but outputs
and caches, the interpreter and distributions, Chromium and ``@viz-js/viz``, the date, the ``SNIPPETS_*`` variables) is
the one stored by the build in place, and that ``site/`` is as it was left (sizes, times, inodes), nothing is built.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from snippet_runner.files import hash_files, write_atomic
from snippet_runner.pictures import vizjs
from snippet_runner.site import chromium

SKIPPED = {".git", ".cache", ".venv", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}
# A folder that says it is a cache (bford.info/cachedir), as mypy's, pytest's and ruff's do.
CACHE_TAG = "CACHEDIR.TAG"
ENVIRONMENT = ("SNIPPETS_", "SOURCE_DATE_EPOCH", chromium.ENV_VAR)
RECORDS = Path(".cache") / "site-builds"  # under the project: one record per site folder
STAGING, RETIRED = ".staging-", ".retired-"  # build.py's folders beside the site: <site>.staging-<random>


def inputs_key(project: Path, site_dir: Path, epoch: int | None) -> str:
    """The key of everything a build of ``project`` into ``site_dir`` reads."""
    digest = hashlib.blake2b(digest_size=20)
    hash_files(digest, project_files(project, site_dir), project)
    digest.update("\0".join([sys.version, *distributions()]).encode())
    browser = chromium.find()
    digest.update(f"{browser}: {chromium.version(browser) if browser else 'none'}\0".encode())
    digest.update(f"{vizjs.version()}\0epoch={epoch}".encode())
    for name in sorted(os.environ):
        if name.startswith(ENVIRONMENT):
            digest.update(f"{name}={os.environ[name]}\0".encode())
    return digest.hexdigest()


def is_current(project: Path, site_dir: Path, key: str) -> bool:
    """True if ``site_dir`` was built from inputs with this key and is untouched since."""
    try:
        record = json.loads(_record_path(project, site_dir).read_text(encoding="utf-8"))
        return isinstance(record, dict) and record.get("key") == key and record.get("files") == _files(site_dir)
    except (OSError, ValueError):  # no record, or a file went while listed: another build is swapping its site in
        return False


def remember(project: Path, site_dir: Path, key: str) -> None:
    """Record, after a successful build, the key it was built from and the files it left."""
    write_atomic(_record_path(project, site_dir), json.dumps({"key": key, "files": _files(site_dir)}))


def forget(project: Path, site_dir: Path) -> None:
    """Before a build replaces ``site_dir``: until it has finished, no record claims it is current."""
    _record_path(project, site_dir).unlink(missing_ok=True)


def _record_path(project: Path, site_dir: Path) -> Path:
    name = hashlib.blake2b(str(site_dir.resolve()).encode(), digest_size=8).hexdigest()
    return project / RECORDS / f"{site_dir.name}-{name}.json"


def project_files(project: Path, site_dir: Path) -> list[Path]:
    site = site_dir.resolve()
    outputs = (f"{site.name}{STAGING}", f"{site.name}{RETIRED}")
    lock = f".{site.name}.lock"  # build.py's, beside the site folder
    found = []
    for folder, dirs, files in os.walk(project):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED
            and (here / d).resolve() != site
            and not d.startswith(outputs)
            and not (here / d / "pyvenv.cfg").exists()
            and not (here / d / CACHE_TAG).is_file()
        )
        found += [here / f for f in sorted(files) if f != lock and (here / f).is_file()]
    return found


def _files(site_dir: Path) -> dict[str, list[int]]:
    paths = (os.path.join(folder, name) for folder, _, files in os.walk(site_dir) for name in files)
    stats = {os.path.relpath(path, site_dir): os.stat(path) for path in paths}
    return {name: [info.st_size, info.st_mtime_ns, info.st_ino] for name, info in sorted(stats.items())}


def distributions() -> list[str]:
    names: set[str] = set()
    for entry in sys.path:
        try:
            names.update(n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return sorted(names)
