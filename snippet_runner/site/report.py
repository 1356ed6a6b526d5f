"""The execution report: what ran in this build, what came from the cache and what each cost, slowest
first (as sphinx-gallery's "computation times"). A build's log, different every time, so it stays out
of ``site/`` (``Project.report_path``); ``make serve`` serves it at :data:`SERVED_AT`.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from snippet_runner.checking.engine import RunRecord
from snippet_runner.files import write_atomic

NAME = "execution-report.html"
SERVED_AT = "_build/" + NAME  # its URL under `serve`, relative to the site's mount path


def write(path: Path, records: list[RunRecord], shown: dict[str, list[str]], snippets_name: str) -> Path:
    """Write the report to ``path`` atomically; return its path. ``report.html`` is a Jinja2 template with
    autoescape on, so a snippet's path and its pages show as text."""
    first_runs = {r.rel: r for r in reversed(records)}  # a snippet a page shows twice is listed once
    rows = sorted(first_runs.values(), key=lambda r: (-r.seconds, r.rel))
    pages = {rel: ", ".join(dict.fromkeys(place.split(":")[0] for place in places)) for rel, places in shown.items()}
    template = (Path(__file__).parent / "report.html").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, trim_blocks=True)
    page = env.from_string(template).render(rows=rows, pages=pages, folder=snippets_name)
    if not path.is_file() or path.read_text(encoding="utf-8") != page:  # rewrite only what changed
        write_atomic(path, page)
    return path
