"""The MkDocs side: a thin plugin over :class:`~snippet_runner.engine.Engine`.

Only this module knows MkDocs. It scans the pages once (``on_files``) to send every uncached
snippet to the worker early, so torch is imported while MkDocs renders; it expands includes per
page; and it keeps one engine (and one warm worker) across the rebuilds of ``mkdocs serve``.

Environment overrides, used by the Makefile and the benchmark:
``SNIPPETS_APPROVAL=warn`` (show unapproved outputs with a warning instead of failing) and
``SNIPPETS_EXECUTE=0`` (show code only; the benchmark's baseline build).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from snippet_runner.engine import Engine
from snippet_runner.errors import SnippetError
from snippet_runner.markdown import DIRECTIVE, expand

log = logging.getLogger("mkdocs.plugins.snippet_runner")


class SnippetRunnerConfig(Config):
    snippets_dir = c.Type(str, default="snippets")
    cache_dir = c.Type(str, default=".cache/snippets")
    approval = c.Choice(("strict", "warn", "accept"), default="strict")
    execute = c.Type(bool, default=True)
    preload = c.ListOfItems(c.Type(str), default=["torch"])


class SnippetRunnerPlugin(BasePlugin[SnippetRunnerConfig]):
    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.serving = False

    def on_startup(self, *, command, dirty) -> None:
        # Defining on_startup makes MkDocs keep this instance across `mkdocs serve` rebuilds.
        self.serving = command == "serve"

    def on_config(self, config):
        root = Path(config.config_file_path or ".").resolve().parent
        approval = os.environ.get("SNIPPETS_APPROVAL", self.config.approval)
        execute = os.environ.get("SNIPPETS_EXECUTE", "1" if self.config.execute else "0") != "0"
        settings = (approval, execute)
        if self.engine is not None and getattr(self, "_settings", None) != settings:
            self.engine.close()
            self.engine = None
        if self.engine is None:
            self.engine = Engine(
                root / self.config.snippets_dir,
                root / self.config.cache_dir,
                approval_mode=approval,
                execute=execute,
                preload=tuple(self.config.preload),
            )
            self._settings = settings
            if self.serving and execute:
                self.engine.runner.warm_up()  # so an edited snippet re-runs in milliseconds
        self.engine.records.clear()
        config.watch.append(str(root / self.config.snippets_dir))
        return config

    def on_files(self, files, *, config):
        rels = []
        for file in files.documentation_pages():
            text = Path(file.abs_src_path).read_text(encoding="utf-8")
            rels += [m["rel"] for m in map(DIRECTIVE.match, text.splitlines()) if m]
        self.engine.prefetch(rels)
        return files

    def on_page_markdown(self, markdown, *, page, config, files):
        try:
            return expand(markdown, f"docs/{page.file.src_uri}", self.engine)
        except SnippetError as error:
            raise PluginError(str(error)) from None

    def on_post_build(self, *, config):
        log.info(self.engine.summary())
        if not self.serving:
            self._close()

    def on_build_error(self, *, error):
        if not self.serving:
            self._close()

    def on_shutdown(self):
        self._close()

    def _close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
