"""Reproducible builds: two builds of the same sources, from two clean copies in two places, give
byte-identical ``site/`` trees, the PDF included; and a warm build rewrites no file.

The first build is the session's ``built_site`` (built in the repository, as `make site` does). The
second is one extra build: the project's files (what git tracks or would track, plus the npm assets
the Makefile fetched) copied to a temporary folder and built there with the same ``python -m
snippet_runner site``. The copy starts with the first build's snippet results (running every
snippet again would only repeat ``fresh_runs``: either way each output in the site is its approved
copy, byte for byte) but no other cache: the notebooks, the pictures, mkdocs-jupyter's conversions
and the PDF are made again. Every file is compared, with no exception: the execution report,
each build's own log, is written outside the site. A difference is reported by name, with the first differing bytes. The copy has no .git, so its build date comes
from ``SOURCE_DATE_EPOCH``, set to the last commit's time as the repository's build computes it.

Then ``mkdocs build`` runs again in the copy, now warm: it must write no file under ``.cache/``
(snippet results, the generated notebooks, mkdocs-jupyter's conversions) or ``docs/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from snippet_runner.site import build as site_module

ROOT = Path(__file__).resolve().parents[2]


def project_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


@pytest.fixture(scope="module")
def clean_copy(shared_dir, built_site, session_build) -> Path:
    """The project copied as a fresh clone would have it, plus the npm packages and assets and the
    session's snippet results; built once per test run, by the first worker that needs it (under a lock)."""
    from filelock import FileLock

    copy, log = shared_dir / "clean" / "project", shared_dir / "clean" / "build.log"
    with FileLock(str(shared_dir / "clean.lock")):
        if not log.exists():
            code, output = _build_clean_copy(copy, session_build)
            log.write_text(f"exit {code}\n{output}")
    assert log.read_text().startswith("exit 0\n"), log.read_text()
    return copy


def _build_clean_copy(copy: Path, session_build) -> tuple[int, str]:
    for name in project_files(ROOT):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "docs" / "assets" / "vendor", copy / "docs" / "assets" / "vendor")
    (copy / "node_modules").symlink_to(ROOT / "node_modules")  # Graphviz (@viz-js/viz) lays out the graphs
    shutil.copytree(session_build.cache, copy / ".cache" / "snippets")
    epoch = site_module.source_date_epoch(ROOT)
    assert epoch is not None, "the repository has no commit to date the build by"
    result = subprocess.run(
        [sys.executable, "-m", "snippet_runner", "site"],
        cwd=copy,
        capture_output=True,
        text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": str(epoch)},
    )
    return result.returncode, result.stdout + result.stderr


def tree(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"{len(a)} vs {len(b)} bytes, first difference at byte {at}: {a[max(0, at - 30) : at + 30]!r} vs {b[max(0, at - 30) : at + 30]!r}"


def test_two_clean_builds_are_byte_identical(built_site, clean_copy):
    first, second = tree(built_site), tree(clean_copy / "site")
    assert not [name for name in first if "execution-report" in name], "the build's log is in the site"
    assert len(first) > 100 and "pdf/autograd-part2.pdf" in first and "sitemap.xml.gz" in first
    assert sorted(set(first) ^ set(second)) == [], "files built only once"
    differing = {
        name: first_difference(first[name].read_bytes(), second[name].read_bytes())
        for name in first
        if first[name].read_bytes() != second[name].read_bytes()
    }
    assert differing == {}, "\n".join(f"{k}: {v}" for k, v in differing.items())


def snapshot(*folders: Path) -> dict[str, tuple[int, int, int]]:
    return {
        str(p): (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_size)
        for folder in folders
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_a_warm_build_rewrites_no_file(clean_copy, tmp_path):
    watched = (clean_copy / ".cache", clean_copy / "docs")
    before = snapshot(*watched)
    assert any("/.cache/notebooks/" in name for name in before), "the cold build wrote no notebooks"
    assert any("/.cache/mkdocs-jupyter/" in name for name in before), "mkdocs-jupyter cached nothing"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "warm")],
        cwd=clean_copy,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    after = snapshot(*watched)
    changed = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
    assert changed == [], f"a build with nothing changed wrote {changed}"
    assert "Cache miss" not in result.stderr, "mkdocs-jupyter converted a notebook again"


def test_a_rebuild_keeps_the_files_it_did_not_change(tmp_path):
    """site.py's swap keeps the old file (its inode and time) wherever the new build's bytes match."""
    old, new = tmp_path / "site", tmp_path / "staging"
    for folder, changed in ((old, "old"), (new, "new")):
        (folder / "sub").mkdir(parents=True)
        (folder / "same.html").write_text("same")
        (folder / "sub" / "same.css").write_text("same too")
        (folder / "changed.html").write_text(changed)
    (new / "added.html").write_text("added")
    kept = {name: (old / name).stat().st_ino for name in ("same.html", "sub/same.css", "changed.html")}
    site_module._swap_in(new, old)
    assert (old / "same.html").stat().st_ino == kept["same.html"]
    assert (old / "sub" / "same.css").stat().st_ino == kept["sub/same.css"]
    assert (old / "changed.html").stat().st_ino != kept["changed.html"]
    assert (old / "changed.html").read_text() == "new" and (old / "added.html").read_text() == "added"
    assert not new.exists() and not list(tmp_path.glob("site.retired-*"))


def _pieces_of_one_link(pdf_path: Path) -> list[str]:
    """Link rectangles of one target that touch on one line of one sheet: pieces of one link."""
    import pikepdf

    found = []
    with pikepdf.open(pdf_path) as pdf:
        for number, sheet in enumerate(pdf.pages, start=1):
            rects: dict[str, list[list[float]]] = {}
            for link in sheet.get("/Annots", []):
                target = str(link.get("/Dest")) if "/Dest" in link else str(link.get("/A", {}).get("/URI"))
                rects.setdefault(target, []).append([float(v) for v in link.Rect])
            for target, boxes in rects.items():
                for a in boxes:
                    for b in boxes:
                        same_line = min(a[3], b[3]) - max(a[1], b[1]) > (a[3] - a[1]) / 2
                        if a is not b and same_line and abs(a[2] - b[0]) < 1:
                            found.append(f"sheet {number}: {target} at x={a[2]:.1f}")
    return found


def test_a_link_is_one_rectangle_a_line_in_the_pdf(built_site):
    """Chromium makes a link's PDF rectangles either one per inline child (an <abbr>, a <code>) or one
    for the whole link, depending on what the page went through before it was printed: a build under
    load once printed three fewer rectangles than the build beside it, and the two PDFs differed. Each
    link gets a box of its own for the print (``site/scripts/steady-links.js``), so it is always one
    rectangle a line (before: 84 links in pieces)."""
    pieces = _pieces_of_one_link(built_site / "pdf" / "autograd-part2.pdf")
    assert not pieces, f"{len(pieces)} links in pieces: {pieces[:5]}"
