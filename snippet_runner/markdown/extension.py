"""``{{ run … }}`` as a Python-Markdown extension, so any builder that runs Python-Markdown expands it (MkDocs,
ProperDocs, Zensical, or ``markdown.markdown(text, extensions=["pymdownx.superfences",
RunExtension(page="docs/x.md")])``). A preprocessor, before the fenced-code extensions, because it writes fenced blocks.
The plugin gives it the build's engine, and the page it renders (learnt from ``on_page_markdown``), through
``mdx_configs``; without it, the first page starts an engine for the process.
"""

from __future__ import annotations

import atexit
import functools
from collections.abc import Callable

from markdown import Extension
from markdown.preprocessors import Preprocessor

from snippet_runner.checking.engine import Engine
from snippet_runner.errors import SnippetError
from snippet_runner.markdown.run_lines import expand
from snippet_runner.project import Project

_BuildError: type[Exception] | None
try:  # under MkDocs (or a fork), a bad snippet is a build error, printed as one message
    from mkdocs.exceptions import PluginError as _BuildError
except ImportError:  # a builder without MkDocs sees the SnippetError itself
    _BuildError = None

# Before fenced code (pymdownx.superfences and fenced_code register at 25), after
# normalize_whitespace (30), so the lines we read are the page's lines.
PRIORITY = 28


@functools.cache
def _standalone(config_file: str) -> tuple[Engine, Callable[[], str]]:
    """Without the plugin: one engine for the process (the extension is made per page)."""
    engine = Project.load(config_file).engine()
    atexit.register(engine.close)
    return engine, lambda: "(page)"


class RunExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "config_file": ["mkdocs.yml", "the mkdocs.yml whose snippet-runner settings apply without the plugin"],
            "page": ["", "the page's name in messages (docs/x.md); MkDocs pages are named automatically"],
            # (engine, the page being rendered): the snippet-runner plugin gives its own, through mdx_configs
            "session": [(), "the engine and page to run with; without them, loaded from config_file"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(_RunPreprocessor(md, self), "snippet_runner", PRIORITY)


class _RunPreprocessor(Preprocessor):
    def __init__(self, md, extension: RunExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        engine, rendering = self.extension.getConfig("session") or _standalone(self.extension.getConfig("config_file"))
        page = self.extension.getConfig("page") or rendering()
        try:
            return expand("\n".join(lines), page, engine, raw_html=self.md.htmlStash.store).split("\n")
        except SnippetError as error:
            if _BuildError is None:
                raise
            raise _BuildError(str(error)) from None


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point for `- snippet_runner.markdown.extension`
    return RunExtension(**kwargs)
