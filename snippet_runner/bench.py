"""``make bench``: what executing the examples costs, as ratios measured side by side in one run.

Absolute times on a shared 2-core machine are noisy, so every figure is compared with a baseline
taken in the same run: a plain build with execution switched off (a) and one ``import torch`` (b).

* (c) cold build, empty caches        target c <= 1.5 x (a + b)
* (d) warm build, nothing changed     target d <= 1.2 x a
* (e) rebuild after editing a snippet target e <= 1.2 x a + that snippet's own run time
  measured the way an author meets it: inside ``mkdocs serve``, whose worker stays warm. A fresh
  ``make site`` after the edit (e') is also shown; it pays for a new torch import.

``--scale`` generates 300 synthetic snippets over 30 pages and reports the engine's overhead per
snippet beyond the snippet's own compute (target <= 10 ms).

Everything runs on a copy of the project in a temporary folder, so the repository's caches and
files are never touched. Each timing is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from snippet_runner.scratch import ScratchProject, serving



def _timed(project: ScratchProject, *args: str, **env: str) -> float:
    started = time.perf_counter()
    code, log = project.run(*args, **env)
    if code != 0:
        sys.exit(f"make bench: python {' '.join(args)} failed:\n{log[-4000:]}")
    return time.perf_counter() - started


def _median(runs: int, measure) -> float:
    return statistics.median(measure() for _ in range(runs))


def _build(project: ScratchProject, **env: str) -> float:
    return _timed(project, "-m", "mkdocs", "build", "--strict", "--site-dir", str(project.root / "site"), **env)


def _serve_style_rebuild(project: ScratchProject, snippet: Path) -> tuple[float, float]:
    """Build twice in one process, as `mkdocs serve` does, editing ``snippet`` in between.

    Returns (rebuild seconds, the edited snippet's own run time)."""
    with serving(project.root, project.root / "site") as served:
        plugin = served.rebuild()
        plugin.engine.runner.wait_ready()  # an author edits seconds later; by then torch is in
        snippet.write_text(snippet.read_text() + "# edited by make bench\n")
        started = time.perf_counter()
        served.rebuild()
        seconds = time.perf_counter() - started
        ran = [r for r in plugin.engine.records if not r.cached]
        assert [r.rel for r in ran] == [snippet.relative_to(project.root / "snippets").as_posix()], ran
        return seconds, ran[0].seconds


def chapter(root: Path, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        project = ScratchProject.copy_of(root, Path(tmp))
        cache = project.root / ".cache"
        _build(project, SNIPPETS_EXECUTE="0")  # warm the notebook converter's own cache
        a = _median(repeat, lambda: _build(project, SNIPPETS_EXECUTE="0"))
        b = _median(repeat, lambda: _timed(project, "-c", "import torch"))

        def cold() -> float:
            shutil.rmtree(cache, ignore_errors=True)
            return _build(project)

        c = _median(repeat, cold)
        d = _median(repeat, lambda: _build(project))
        edited = project.root / "snippets" / "chain_rule" / "autograd_check.py"

        def edit_then_build() -> float:
            edited.write_text(edited.read_text() + "# edited\n")
            return _build(project, SNIPPETS_APPROVAL="warn")

        e_fresh = _median(repeat, edit_then_build)
        e, own = _serve_style_rebuild(project, edited)

    print(f"(a) plain build, execution off         {a:6.2f} s")
    print(f"(b) python -c 'import torch'           {b:6.2f} s")
    print(f"(c) cold build, empty caches           {c:6.2f} s")
    print(f"(d) warm build, nothing changed        {d:6.2f} s")
    print(f"(e) one snippet edited, mkdocs serve   {e:6.2f} s  (the snippet itself ran {own * 1000:.0f} ms)")
    print(f"(e') one snippet edited, fresh build   {e_fresh:6.2f} s  (includes a new torch import)")
    print()
    _verdict("c / (a + b)", c / (a + b), 1.5)
    _verdict("d / a", d / a, 1.2)
    _verdict("e / a", e / a, 1.2 + own / a, note=f"target 1.2 + own run time / a = {1.2 + own / a:.2f}")


def _verdict(name: str, value: float, target: float, note: str = "") -> None:
    status = "ok" if value <= target else "OVER TARGET"
    print(f"{name:12s} = {value:5.2f}   target <= {target:.2f}   {status}  {note}".rstrip())


SCALE_SNIPPET = """import torch

x = torch.linspace(-1, 1, 64, requires_grad=True)
loss = ((x * {k} - 1) ** 2).mean()
loss.backward()
print("snippet {k}:", round(loss.item(), 4), round(x.grad.abs().sum().item(), 4))
"""


def scale(pages: int = 30, per_page: int = 10) -> None:
    """Engine overhead per snippet: wall time of expanding every page minus the snippets' own time."""
    from snippet_runner.includes import expand
    from snippet_runner.project import Project

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        scratch = ScratchProject(Path(tmp))
        scratch.write("mkdocs.yml", "site_name: scale\nplugins:\n  - snippet-runner\n")
        docs = {}
        for p in range(pages):
            lines = [f"# Page {p}", ""]
            for s in range(per_page):
                scratch.write(f"snippets/page_{p:02d}/example_{s:02d}.py", SCALE_SNIPPET.format(k=p * per_page + s))
                lines += [f"Example {s}.", "", f"{{{{ run page_{p:02d}/example_{s:02d}.py }}}}", ""]
            docs[f"docs/page_{p:02d}.md"] = "\n".join(lines)
            scratch.write(f"docs/page_{p:02d}.md", docs[f"docs/page_{p:02d}.md"])
        project = Project.load(scratch.root / "mkdocs.yml")

        accept = project.engine(approval="accept", cached=False)
        for page, text in docs.items():
            expand(text, page, accept)
        accept.close()

        engine = project.engine()
        engine.runner.wait_ready()
        started = time.perf_counter()
        for page, text in docs.items():
            expand(text, page, engine)
        cold = time.perf_counter() - started
        own = sum(r.seconds for r in engine.records)
        engine.records.clear()
        started = time.perf_counter()
        for page, text in docs.items():
            expand(text, page, engine)
        warm = time.perf_counter() - started
        engine.close()

    count = pages * per_page
    overhead = (cold - own) / count
    print(f"scale: {count} snippets over {pages} pages, worker already warm")
    print(f"  cold: {cold:.2f} s in all, {own:.2f} s of it the snippets' own compute")
    print(f"  warm (all cached): {warm:.2f} s, {warm / count * 1000:.2f} ms per snippet")
    _verdict("overhead/snippet (ms)", overhead * 1000, 10.0)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m snippet_runner.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the median is shown")
    parser.add_argument("--scale", action="store_true", help="only the 300-snippet overhead measurement")
    args = parser.parse_args()
    root = Path.cwd()
    if not args.scale:
        chapter(root, args.repeat)
        print()
    scale()


if __name__ == "__main__":
    main()
