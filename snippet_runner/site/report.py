"""The execution report: what ran in this build, what came from the cache and what each cost, slowest
first (as sphinx-gallery's "computation times"). A build's log, different every time, so it stays out
of ``site/`` (``Project.report_path``); ``make serve`` serves it at :data:`SERVED_AT`.
"""

from __future__ import annotations

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
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Execution report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; background: #fff; }}
table {{ border-collapse: collapse; }}
th, td {{ border-bottom: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
.scroll {{ overflow-x: auto; }}
</style>
</head>
<body>
<main>
<h1>Execution report</h1>
<p>{len(rows)} snippets and notebooks in this build: {len(ran)} ran, {len(rows) - len(ran)} came from the cache.
Their run times add up to {total:.2f} s (a cached one shows the time of the run that made its cache entry).
Slowest first.</p>
<div class="scroll" tabindex="0" role="region" aria-label="Snippets and their costs">
<table>
<thead><tr><th scope="col">Snippet</th><th scope="col">Shown on</th><th scope="col">This build</th>
<th scope="col">Run time (ms)</th><th scope="col">Peak memory growth (MB)</th><th scope="col">Output (bytes)</th></tr></thead>
<tbody>
{body}
</tbody>
</table>
</div>
</main>
</body>
</html>
"""
    if not path.is_file() or path.read_text(encoding="utf-8") != page:  # rewrite only what changed
        write_atomic(path, page)
    return path
