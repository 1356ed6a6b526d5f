"""The execution report: what ran in this build, what came from the cache and what each cost, slowest
first (as sphinx-gallery's "computation times"). A build's log, different every time, so it stays out
of ``site/`` (``Project.report_path``); ``make serve`` serves it at :data:`SERVED_AT`.
"""

from __future__ import annotations

import string
from html import escape
from pathlib import Path

from snippet_runner.checking.engine import RunRecord
from snippet_runner.files import write_atomic

NAME = "execution-report.html"
SERVED_AT = "_build/" + NAME  # its URL under `serve`, relative to the site's mount path


def write(path: Path, records: list[RunRecord], shown: dict[str, list[str]], snippets_name: str) -> Path:
    """Write the report to ``path`` atomically; return its path."""
    first_runs = {r.rel: r for r in reversed(records)}  # a snippet a page shows twice is listed once
    rows = sorted(first_runs.values(), key=lambda r: (-r.seconds, r.rel))
    ran = [r for r in rows if not r.cached]
    pages = {
        rel: ", ".join(dict.fromkeys(escape(place.split(":")[0]) for place in places)) for rel, places in shown.items()
    }
    body = "\n".join(
        "<tr>"
        f'<th scope="row"><code>{escape(snippets_name)}/{escape(r.rel)}</code></th>'
        f"<td>{pages.get(r.rel) or '(none)'}</td>"
        f"<td>{'cache' if r.cached else 'ran'}</td>"
        f'<td class="n">{r.seconds * 1000:.1f}</td>'
        f'<td class="n">{r.peak_rss_growth_kb / 1024:.1f}</td>'
        f'<td class="n">{r.output_bytes:,}</td>'
        "</tr>"
        for r in rows
    )
    total = sum(r.seconds for r in rows)
    page = string.Template((Path(__file__).parent / "report.html").read_text(encoding="utf-8")).substitute(
        count=len(rows), ran=len(ran), cached=len(rows) - len(ran), total=f"{total:.2f}", body=body
    )
    if not path.is_file() or path.read_text(encoding="utf-8") != page:  # rewrite only what changed
        write_atomic(path, page)
    return path
