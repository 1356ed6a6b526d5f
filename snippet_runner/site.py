"""Build the site into a temporary folder and swap it in only when the whole build succeeded.

``mkdocs build`` cleans its output folder first, so a failed build would otherwise leave a
half-written ``site/`` in place of the last good one. MkDocs has no option for this.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def build(site_dir: Path = Path("site"), config: Path = Path("mkdocs.yml")) -> int:
    site_dir = site_dir.resolve()
    staging = Path(tempfile.mkdtemp(prefix=f"{site_dir.name}.staging-", dir=site_dir.parent))
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(staging)]
    code = subprocess.call(command, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    if code != 0:
        shutil.rmtree(staging, ignore_errors=True)
        kept = "left as it was" if site_dir.exists() else "not created"
        print(f"\nBuild failed; {site_dir.name}/ was {kept}.", file=sys.stderr)
        return code
    _swap_in(staging, site_dir)
    print(f"Site built into {site_dir.name}/")
    return 0


def _swap_in(staging: Path, site_dir: Path) -> None:
    retired = None
    if site_dir.exists():
        retired = site_dir.with_name(f"{site_dir.name}.retired-{os.getpid()}")
        site_dir.rename(retired)
    staging.rename(site_dir)
    if retired is not None:
        shutil.rmtree(retired, ignore_errors=True)
