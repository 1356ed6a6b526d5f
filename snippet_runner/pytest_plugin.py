"""``pytest --snippets``: each example a site's pages show becomes a test item, collected from the
``mkdocs.yml`` pytest finds (registered through the ``pytest11`` entry point, as pytest-examples and
nbval are). An item runs its example confined and fresh through the engine, as a strict build does,
and fails with the engine's one message and the diff against the approved output."""

from __future__ import annotations

import pytest

from snippet_runner.errors import SnippetError
from snippet_runner.project import Project


def pytest_addoption(parser) -> None:
    parser.getgroup("snippets").addoption(
        "--snippets",
        action="store_true",
        help="collect each example the pages of mkdocs.yml show: run it confined, compare with its approved output",
    )


def pytest_collect_file(file_path, parent):
    if parent.config.getoption("snippets") and file_path.name == "mkdocs.yml":
        return Site.from_parent(parent, path=file_path)


class Site(pytest.File):
    """One ``mkdocs.yml``: its examples, run by one engine (its workers import torch once)."""

    def collect(self):
        try:
            self.project = Project.load(self.path)
        except SnippetError as error:
            raise self.CollectError(str(error)) from None
        self.engine = None
        for rel, pages in self.project.shown().items():
            yield Example.from_parent(self, name=rel, rel=rel, pages=pages)

    def started_engine(self):
        if self.engine is None:
            self.engine = self.project.engine(approval="strict", cached=False)
            self.config.add_cleanup(self.engine.close)
            self.engine.prefetch([item.rel for item in self.session.items if item.parent is self])  # all at once
        return self.engine


class Example(pytest.Item):
    def __init__(self, *, rel: str, pages: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.rel, self.pages = rel, pages

    def runtest(self) -> None:
        site = self.parent
        assert isinstance(site, Site)
        site.started_engine().run(self.rel)  # a failure, a difference, a missing .out: SnippetError

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, SnippetError):
            return str(excinfo.value)  # with the diff, if its output differs
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"{self.parent.project.snippets_name}/{self.rel} (shown by {', '.join(self.pages)})"
