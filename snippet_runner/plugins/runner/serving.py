"""``make serve``: ``mkdocs serve --dirty`` (MkDocs' way to render again only the pages whose source
changed), plus the pages whose snippets changed, and the execution report at a URL of its own.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from snippet_runner.files import hash_files
from snippet_runner.site import report

log = logging.getLogger("mkdocs.plugins.snippet_runner")


def forget_changed_pages(files, before: dict[str, str], now: dict[str, str]) -> None:
    """Remove the HTML of every page whose snippets now show something else (key ``""``: every page),
    since its source is unchanged and ``--dirty`` would not render it again."""
    if not before:
        return  # the first build of the session renders everything
    everything = now[""] != before.get("")
    changed = [f for f in files.documentation_pages() if everything or now.get(f.src_uri) != before.get(f.src_uri)]
    for file in changed:
        Path(file.abs_dest_path).unlink(missing_ok=True)
    if everything:
        log.info("Dirty build: the settings, theme or drift records changed, so every page is rendered again")
    elif changed:
        log.info(
            f"Dirty build: rendering again the pages whose snippets changed: {', '.join(f.src_uri for f in changed)}"
        )


def site_wide(config) -> str:
    """What every page shows besides its own source: the settings, the overrides, the drift records."""
    digest = hashlib.blake2b(Path(config.config_file_path).read_bytes(), digest_size=16)
    root = Path(config.config_file_path).parent
    drift = config.plugins.get("snippet-drift")
    for folder in (config.theme.custom_dir, root / drift.config.records_dir if drift else None):
        if folder and Path(folder).is_dir():
            hash_files(digest, sorted(p for p in Path(folder).rglob("*") if p.is_file()), Path(folder))
    return digest.hexdigest()


# MkDocs' warning on every ``--dirty`` build (mkdocs/commands/build.py; a test pins the installed
# MkDocs to this wording), which ``strict`` would count against every rebuild of ``make serve``
MKDOCS_DIRTY_WARNING = "A 'dirty' build is being performed"


def dirty_note(record: logging.LogRecord) -> bool:
    """A logging filter on MkDocs' build logger: its ``--dirty`` warning is left out (the record is not
    changed), and this plugin says in its own line, at INFO, what the dirty build does."""
    if record.levelno == logging.WARNING and str(record.msg).startswith(MKDOCS_DIRTY_WARNING):
        log.info("Dirty build: rendering again the pages whose source, snippets or settings changed")
        return False
    return True


def report_app(server, path: Path):
    """Serve the execution report at ``report.SERVED_AT``, read afresh each time; return its URL."""
    url_path = server.mount_path + report.SERVED_AT
    site_app = server.get_app()

    def app(environ, start_response):
        if environ.get("PATH_INFO") != url_path:
            return site_app(environ, start_response)
        try:
            body = path.read_bytes()
        except OSError:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"No execution report yet: no build has run a snippet."]
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))])
        return [body]

    server.set_app(app)
    return server.url.rstrip("/") + "/" + report.SERVED_AT
