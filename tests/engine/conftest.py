"""A warm engine shared by the tests of one module: its worker imports torch once (about a second
of CPU), not once per test. Each snippet still runs in a fork of that worker, so nothing one test's
snippet does reaches the next; ``begin_build()`` before each test forgets the previous test's
results, as a new build does, and keeps the warm worker, as ``make serve`` does."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from snippet_runner import Engine


@dataclass
class Warm:
    engine: Engine

    def __post_init__(self):
        def write(rel: str, code: str) -> Path:
            """Write ``snippets/<rel>`` in the engine's snippets folder, as ``write_snippet`` does."""
            path = self.engine.snippets_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
            return path

        write.snippets = self.engine.snippets_dir
        self.write = write

    def build(self, approval_mode: str = "warn") -> Engine:
        """The engine as a new build in ``approval_mode`` starts it: nothing remembered, worker warm."""
        self.engine.approval_mode = approval_mode
        self.engine.begin_build()
        return self.engine


@pytest.fixture(scope="module")
def _warm_engine(tmp_path_factory):
    engine = Engine(tmp_path_factory.mktemp("snippets"), approval_mode="warn")
    yield engine
    engine.close()


@pytest.fixture
def warm(_warm_engine) -> Warm:
    """The module's engine, with nothing of the previous test's build remembered."""
    warm = Warm(_warm_engine)
    warm.build()
    return warm
