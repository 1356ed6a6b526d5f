"""``make bench``: what a build costs, as ratios to a plain Material build measured in the same run.

Absolute times on a shared 2-core machine are noisy, so every figure is divided by a baseline taken
side by side: **(a)** a plain Material build of the same Markdown pages, with only the ``search``
and ``offline`` plugins and without the notebook pages (the ``{{ run }}`` lines stay as text), and
**(b)** one ``python -c "import torch"``.

* (p) one plain Chromium print of the built print page (Playwright's ``page.pdf``: load, render,
  print, nothing else)
* (c) cold ``make site`` (empty caches, PDF printed)  target c - p <= 1.5 x (a + b + g1), where
  g1 is the snippets' compute run one after another in one warm process (row g)
* (d) warm ``make site``, nothing changed, PDF too    target d <= 1.5 x a
  (no build runs: site/skip.py; also shown, for information, a forced build with every step reused)
* (e) ``make serve`` (no print page): a snippet edited, from the file write until the served page shows the new
  output over HTTP                                   target e <= 1.5 x a + the snippet's own run time
* (f) the same for an edit of a page's prose         target f <= 1.5 x a
* (g) the chapter's snippet time as the build spends it (workers warmed), and the same snippets
  one after another in one warm process (``snippet_time.py``), for information
* (h) one sentence of one page edited, then ``make site`` (PDF included)   target h <= 1.5 x (a + p)

``--scale`` generates 1,000 synthetic snippets over 100 pages and runs them cold on every core (one
worker per core, each importing torch once), and reports:

* **overhead per snippet** (no target: the 2 ms one was withdrawn, as a fork alone costs 2.8 ms of
  CPU): ``(cold - imports - compute / workers) / snippets``,
  the wall time the build spends per snippet on anything but the snippets' own work. *compute* is
  the sum of each snippet's run time as its process measured it (``RunResult.seconds``, from its
  first line to its last, including the page faults its own work causes), divided by the number
  of workers, which run side by side; *imports* is the wall time until every worker is ready. It
  includes the build's own side (reading, checking and caching each result, rendering the pages).
* **cost beyond the compute, per core**: ``cold - compute / workers``, the same with the imports.
* **CPU per snippet**, in the build process, and in the workers with the snippets' processes (the
  kernel's work to fork and end them included; the workers' imports not; the snippets' compute
  included, since only its wall time is known). Wall times on a shared machine move with its
  load; CPU times move less, so they are the figures to compare between two versions.
* each worker's **peak resident memory** (VmHWM); a worker that grows past
  ``pool.RECYCLE_ABOVE_KB`` is replaced.

The warm build after it runs in a new engine, as a later build would.

Everything runs on a copy of the project in a temporary folder, so the repository's caches and
files are never touched. Each timing is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import yaml

from devtools import snippet_time
from devtools.scratch import ENV, ScratchProject, free_port

BASELINE_CONFIG = "mkdocs-baseline.yml"


def _timed(project: ScratchProject, *args: str, **env: str) -> tuple[float, str]:
    started = time.perf_counter()
    code, log = project.run(*args, **env)
    if code != 0:
        sys.exit(f"make bench: python {' '.join(args)} failed:\n{log[-4000:]}")
    return time.perf_counter() - started, log


def _median(runs: int, measure) -> float:
    return statistics.median(measure() for _ in range(runs))


# -- the baseline ------------------------------------------------------------------------------


class _Tagged(str):
    """A ``!!python/name:`` value of mkdocs.yml, kept as written."""

    tag = ""


def _tagged(loader, suffix, node):
    value = _Tagged(loader.construct_scalar(node))
    value.tag = "tag:yaml.org,2002:python/" + suffix
    return value


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _tagged)
# MkDocs' `!ENV [NAME, default]`: the baseline keeps none of the settings that use it; read the default.
_Loader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])
_Dumper.add_representer(_Tagged, lambda dumper, value: dumper.represent_scalar(value.tag, str(value)))


def write_baseline_config(project: Path) -> Path:
    """``mkdocs.yml`` as a plain Material site: the same theme, pages and Markdown extensions
    (without ours), the search and offline plugins only, no notebook pages."""
    config = yaml.load((project / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    search: dict = next((p["search"] for p in config["plugins"] if isinstance(p, dict) and "search" in p), {})
    config["plugins"] = [{"search": search}, "offline"]
    config["markdown_extensions"] = [
        e for e in config["markdown_extensions"] if e != "snippet_runner.markdown.extension"
    ]
    config["nav"] = _without_notebooks(config["nav"])
    config["theme"].pop("custom_dir", None)  # the PDF link needs print-site
    config["exclude_docs"] = "*.ipynb\n"
    path = project / BASELINE_CONFIG
    path.write_text(yaml.dump(config, Dumper=_Dumper, sort_keys=False), encoding="utf-8")
    return path


def _without_notebooks(items: list) -> list:
    kept = []
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            inner = _without_notebooks(value)
            if inner:
                kept.append({next(iter(item)): inner} if isinstance(item, dict) else inner)
        elif not str(value).endswith(".ipynb"):
            kept.append(item)
    return kept


# -- make serve, as an author meets it ---------------------------------------------------------


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _until_served(url: str, text: str, limit: float = 300) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if text in _fetch(url):
            return time.perf_counter() - started
        time.sleep(0.02)
    sys.exit(f"make bench: {url} never showed {text!r}")


def serve_edits(project: ScratchProject, snippet: Path, page: Path, url_path: str) -> tuple[float, float]:
    """Start ``mkdocs serve``, wait until it serves, then time (from the file write until the page
    served over HTTP shows the change) an edit of ``snippet`` and an edit of ``page``'s prose."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "snippet_runner", "serve", "--dev-addr", f"127.0.0.1:{port}"],  # `make serve`
        cwd=project.root,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/{url_path}"
    try:
        _until_served(url, "snippet-output")
        time.sleep(3)  # the author edits some seconds later: the worker has imported torch by then
        snippet.write_text(snippet.read_text().replace("print(", "print('edited:', ", 1))
        started = time.perf_counter()
        _until_served(url, "edited:")
        snippet_seconds = time.perf_counter() - started
        time.sleep(1)
        page.write_text(page.read_text().replace("\n\n", "\n\nA sentence added by make bench.\n\n", 1))
        started = time.perf_counter()
        _until_served(url, "A sentence added by make bench.")
        prose_seconds = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    return snippet_seconds, prose_seconds


# -- the chapter ---------------------------------------------------------------------------------

_SNIPPET_TIME = re.compile(r"([\d.]+) s of snippet time")


def chapter(root: Path, repeat: int) -> None:
    """Each row is printed as soon as it is measured (a run on a loaded machine may take long, and a
    late failure must not lose the rows before it); the ratios come last."""
    show = functools.partial(print, flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        project = ScratchProject.copy_of(root, Path(tmp))
        baseline = write_baseline_config(project.root)
        build_baseline = ("-m", "mkdocs", "build", "-q", "-f", str(baseline), "-d", str(Path(tmp) / "baseline"))
        _timed(project, *build_baseline)  # once, to warm the disk
        a = _median(repeat, lambda: _timed(project, *build_baseline)[0])
        show(f"(a) plain Material build (search + offline) {a:6.2f} s   the baseline")
        b = _median(repeat, lambda: _timed(project, "-c", "import torch")[0])
        show(f"(b) python -c 'import torch'                {b:6.2f} s")

        colds = []
        for _ in range(repeat):
            shutil.rmtree(project.root / ".cache", ignore_errors=True)
            seconds, log = _timed(project, "-m", "snippet_runner", "site")
            compute = float(m.group(1)) if (m := _SNIPPET_TIME.search(log)) else 0.0
            colds.append((seconds, compute))
        c, compute = (statistics.median(x) for x in zip(*colds, strict=True))
        show(f"(c) cold make site, empty caches            {c:6.2f} s   build's snippet time {compute:.2f} s")
        p = _median(repeat, lambda: plain_print(project.root / "site" / "print_page.html", Path(tmp) / "plain.pdf"))
        show(f"(p) one plain Chromium print of the page    {p:6.2f} s")
        g = snippet_time.side_by_side(project.root, repeat)
        show(
            f"(g) snippet time, the build's way            {g.warmed:6.2f} s   {g.snippets} snippets, workers warmed;"
            f" one warm process {g.one_process:.2f} s"
        )
        d = _median(repeat, lambda: _timed(project, "-m", "snippet_runner", "site")[0])
        show(f"(d) warm make site, nothing changed         {d:6.2f} s   no build: inputs and site/ unchanged")
        forced = _median(repeat, lambda: _timed(project, "-m", "snippet_runner", "site", "--force")[0])
        show(f"    the same with --force                   {forced:6.2f} s   MkDocs renders every page; the PDF reused")
        h = prose_edit_builds(project, project.root / "docs" / "chain-rule.md", repeat)
        show(f"(h) one sentence edited, then make site      {h:6.2f} s   the PDF printed again")
        e, f = serve_edits(
            project,
            project.root / "snippets" / "chain_rule" / "autograd_check.py",
            project.root / "docs" / "chain-rule.md",
            "chain-rule.html",
        )
        show(f"(e) make serve, a snippet edited            {e:6.2f} s   from the write to the new output served")
        show(f"(f) make serve, a page's prose edited       {f:6.2f} s")
    show()
    _verdict("(c - p) / (a + b + g1)", (c - p) / (a + b + g.one_process), 1.5)
    _verdict("h / (a + p)", h / (a + p), 1.5)
    _verdict("d / a", d / a, 1.5)
    _verdict("e / a", e / a, 1.5, note="plus the snippet's own run time, a few ms")
    _verdict("f / a", f / a, 1.5)


def plain_print(print_page: Path, out: Path) -> float:
    """Seconds for one plain print of ``print_page``: Chromium launched, the page loaded and
    rendered (math, diagrams, fonts), printed with Playwright's defaults and nothing else."""
    from snippet_runner.site import chromium, pdf, print_origin

    started = time.perf_counter()
    with chromium.launch(*print_origin.NO_NETWORK) as browser:
        page = print_origin.context(browser, print_page.parent, []).new_page()
        url = print_origin.url(print_page.parent, print_page)
        page.goto(url, wait_until="load", timeout=pdf.RENDER_TIMEOUT_MS)
        page.wait_for_function(pdf.script("rendered"), timeout=pdf.RENDER_TIMEOUT_MS)
        page.pdf(path=str(out), format="A4")
    return time.perf_counter() - started


def prose_edit_builds(project: ScratchProject, page: Path, repeat: int) -> float:
    """One sentence added to ``page``, then ``make site``, ``repeat`` times (a new sentence each
    time): the median of the whole build."""
    runs = []
    for i in range(repeat):
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("\n\n", f"\n\nA sentence make bench added, number {i}.\n\n", 1))
        runs.append(_timed(project, "-m", "snippet_runner", "site")[0])
    return statistics.median(runs)


def _verdict(name: str, value: float, target: float, note: str = "") -> None:
    status = "ok" if value <= target else "OVER TARGET"
    print(f"{name:34s} = {value:5.2f}   target <= {target:.2f}   {status}  {note}".rstrip())


# -- scale -----------------------------------------------------------------------------------

SCALE_SNIPPET = """import torch

x = torch.linspace(-1, 1, 64, requires_grad=True)
loss = ((x * {k} - 1) ** 2).mean()
loss.backward()
print("snippet {k}:", round(loss.item(), 4), round(x.grad.abs().sum().item(), 4))
"""


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process, and of the processes it has reaped (a closed worker brings
    the CPU time of every snippet process it reaped with it)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def scale(pages: int = 100, per_page: int = 10) -> None:
    """A book, not a chapter: the engine's overhead per snippet, cold, on every core."""
    from snippet_runner.checking.accept import HASH_SEEDS, approve
    from snippet_runner.markdown.run_lines import expand
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
        rels = list(project.shown())

        engines = [project.engine(cached=False, worker_env={"PYTHONHASHSEED": seed}) for seed in HASH_SEEDS]
        refused = [a.error for a in approve(engines[0], engines[1], rels) if a.error is not None]
        for engine in engines:
            engine.close()
        if refused:
            raise SystemExit(f"bench: the generated snippets could not be approved: {refused[0]}")

        engine = project.engine()
        cpu_before = _cpu()
        started = time.perf_counter()
        engine.prefetch(rels)
        for runner in engine.runners:
            runner.wait_ready()
        imported = time.perf_counter() - started
        for page, text in docs.items():
            expand(text, page, engine)
        cold = time.perf_counter() - started
        peaks = [runner.peak_rss_kb() for runner in engine.runners]
        own = sum(r.seconds for r in engine.records)
        workers = len(engine.runners)
        import_cpu = sum(runner.import_cpu_seconds or 0.0 for runner in engine.runners)
        engine.close()
        build_cpu, workers_cpu = (after - before for after, before in zip(_cpu(), cpu_before, strict=True))

        warm_engine = project.engine()  # a later build: everything comes from the cache
        started = time.perf_counter()
        for page, text in docs.items():
            expand(text, page, warm_engine)
        warm = time.perf_counter() - started
        warm_engine.close()

    count = pages * per_page
    beyond = cold - own / workers  # wall time the build spends on anything but the snippets' own work
    overhead = (beyond - imported) / count
    print(f"scale: {count} snippets over {pages} pages, cold, {workers} workers on {os.cpu_count()} cores")
    print(f"  cold build              {cold:7.2f} s wall")
    print(f"    workers importing     {imported:7.2f} s wall (until every worker is ready)")
    print(f"    snippets' own compute {own:7.2f} s, summed over snippets ({own / workers:.2f} s per worker)")
    print(f"  cost beyond the compute, per core: {beyond:.2f} s  (cold - compute / workers)")
    print(f"  overhead per snippet: {overhead * 1000:.2f} ms wall  (cold - imports - compute / workers) / snippets")
    print(
        f"  CPU per snippet: {build_cpu / count * 1000:.2f} ms in the build process,"
        f" {(workers_cpu - import_cpu) / count * 1000:.2f} ms in the workers and the snippets' processes"
        f" (their compute included, the imports' {import_cpu:.2f} s not)"
    )
    print(f"  workers' peak resident memory: {', '.join(f'{kb / 1024:.0f} MB' for kb in peaks)}")
    print(f"  warm (all cached): {warm:.2f} s, {warm / count * 1000:.2f} ms per snippet")
    # No verdict: the 2 ms target of an earlier issue was withdrawn (issue 24), since a fork alone
    # costs 2.8 ms of CPU here and the isolation is worth it. The figure is kept to follow it.
    print(f"{'overhead/snippet (ms)':34s} = {overhead * 1000:5.2f}   no target (the 2 ms one was withdrawn)")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devtools.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the median is shown")
    parser.add_argument("--scale", action="store_true", help="only the 1,000-snippet measurement")
    parser.add_argument("--no-scale", action="store_true", help="leave the 1,000-snippet measurement out")
    parser.add_argument("--no-record", action="store_true", help=f"do not rewrite the table in {RECORD}")
    args = parser.parse_args()
    with _recorded() as printed:
        if not args.scale:
            chapter(Path.cwd(), args.repeat)
            print()
        if not args.no_scale:
            scale()
    if not args.no_record:
        record(Path.cwd() / RECORD, printed.getvalue(), args)
        print(f"bench: the table in {RECORD} is now this run's")


# -- the developers' table -----------------------------------------------------------------------

RECORD = Path("dev") / "measurements.md"
START, END = "<!-- make bench: start -->", "<!-- make bench: end -->"


@contextlib.contextmanager
def _recorded() -> Iterator[io.StringIO]:
    """Everything printed meanwhile, both to the terminal and into the returned buffer."""
    buffer = io.StringIO()

    class Tee(io.TextIOBase):
        def write(self, text: str) -> int:
            buffer.write(text)
            return terminal.write(text)

        def flush(self) -> None:
            terminal.flush()

    terminal = sys.stdout
    sys.stdout = Tee()
    try:
        yield buffer
    finally:
        sys.stdout = terminal


def record(path: Path, printed: str, args: argparse.Namespace) -> None:
    """Put this run's report between the markers of the developers' measurements page: the one
    place the figures live, so no docstring or README carries a number of its own."""
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"bench: {path} has no '{START}' ... '{END}' block to rewrite")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    flags = " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in vars(args).items() if v)
    block = (
        f"{START}\nLast run: {when}, `make bench{(' ' + flags) if flags else ''}`, on {os.cpu_count()} cores,"
        f" load average {os.getloadavg()[0]:.1f} at the end.\n\n```text\n{printed.strip()}\n```\n{END}"
    )
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    path.write_text(before + block + after, encoding="utf-8")


if __name__ == "__main__":
    main()
