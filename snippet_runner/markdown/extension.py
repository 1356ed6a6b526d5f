"""``{{ run … }}`` as a Python-Markdown extension, so any builder that runs Python-Markdown expands it
(MkDocs, ProperDocs, Zensical, or ``markdown.markdown(text, extensions=["pymdownx.superfences",
RunExtension(page="docs/x.md")])``).
A preprocessor, before the fenced-code extensions, because it writes fenced blocks. The plugin gives
it the build's engine through ``mdx_configs``; without it, the first page starts one for the process.
"""

from __future__ import annotations

import atexit
import functools
from pathlib import Path

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
def _standalone(config_file: str) -> tuple[Project, Engine]:
    """Without the plugin: one project and engine for the process (the extension is made per page)."""
    project = Project.load(config_file)
    engine = project.engine()
    atexit.register(engine.close)
    return project, engine


class RunExtension(Extension):
    def __init__(self, **kwargs):
        self.config = {
            "config_file": ["mkdocs.yml", "the mkdocs.yml whose snippet-runner settings apply without the plugin"],
            "page": ["", "the page's name in messages (docs/x.md); MkDocs pages are named automatically"],
            # (project, engine): the snippet-runner plugin gives its own, through mdx_configs
            "session": [(), "the project and engine to run with; without them, loaded from config_file"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(_RunPreprocessor(md, self), "snippet_runner", PRIORITY)


class _RunPreprocessor(Preprocessor):
    def __init__(self, md, extension: RunExtension):
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        session = self.extension.getConfig("session")
        project, engine = session or _standalone(self.extension.getConfig("config_file"))
        text = "\n".join(lines)
        try:
            return expand(text, self._page_name(project), engine, raw_html=self.md.htmlStash.store).split("\n")
        except SnippetError as error:
            if _BuildError is None:
                raise
            raise _BuildError(str(error)) from None

    def _page_name(self, project: Project) -> str:
        if named := self.extension.getConfig("page"):
            return named
        # MkDocs (and its forks) register their link-rewriting treeprocessor with the page's File.
        relpath = self.md.treeprocessors["relpath"] if "relpath" in self.md.treeprocessors else None  # noqa: SIM401 - a Registry, no .get()
        file = getattr(relpath, "file", None)
        if file is not None and getattr(file, "abs_src_path", None):
            return project.shown_path(Path(file.abs_src_path))
        return "(page)"


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point for `- snippet_runner.markdown.extension`
    return RunExtension(**kwargs)
