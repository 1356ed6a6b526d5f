"""A warm engine shared by the tests (``warm_engine``, tests/conftest.py: one per pytest process,
its snippets folder emptied for each module): its worker imports torch once, not once per test or
module. Each snippet still runs in a fork of that worker, so nothing one test's snippet does
reaches the next; ``begin_build()`` before each test forgets the previous test's results, as a new
build does, and keeps the warm worker, as ``make serve`` does."""

from __future__ import annotations

import pytest
from throwaway import new_build, snippet_writer

from snippet_runner import Engine
from snippet_runner.checking.accept import approve


@pytest.fixture
def accept(warm_engine, second_engine):
    """``accept(rel)``: approve a snippet the one way there is (checking/accept.py), on the warm
    engines, as a new build; returns the first run's outcome (its Approval's error is raised)."""

    def accept(rel: str):
        engines = [new_build(e, "warn") for e in (warm_engine, second_engine)]
        (approval,) = approve(*engines, [rel])
        if approval.error is not None:
            raise approval.error
        return engines[0].run(rel)

    return accept


@pytest.fixture
def engine(warm_engine) -> Engine:
    """The warm engine, in warn mode, with nothing of the previous test's build remembered."""
    return new_build(warm_engine, "warn")


@pytest.fixture
def write_snippet(request, tmp_path):
    """Writes snippets where the test's engine reads them: into the warm engine's folder for a test
    that takes ``engine``, else into a folder of the test's own (for the engines it makes itself)."""
    if {"engine", "accept"} & set(request.fixturenames):
        return snippet_writer(request.getfixturevalue("warm_engine").snippets_dir)
    return snippet_writer(tmp_path / "snippets")
