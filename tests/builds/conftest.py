"""Fixtures of the build tests: the minimal throwaway project with its good site built once per
worker, so the many tests that start from a good site copy it instead of building it again."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from devtools.scratch import ScratchProject


@dataclass(frozen=True)
class BuiltMinimal:
    root: Path
    log: str  # what its one build printed


@pytest.fixture(scope="session")
def built_minimal(tmp_path_factory) -> BuiltMinimal:
    """The minimal project (``ScratchProject.minimal``) after one successful ``make site``."""
    scratch = ScratchProject.minimal(tmp_path_factory.mktemp("built-minimal") / "project")
    code, log = scratch.build()
    assert code == 0, log
    return BuiltMinimal(scratch.root, log)


@pytest.fixture
def built(tmp_path, built_minimal) -> ScratchProject:
    """A copy of ``built_minimal`` in ``tmp_path/project``: the minimal project, its good ``site/`` and
    its snippet cache. Its site is not "up to date" for ``make site`` (a copy has other paths and
    inodes), so a build of the copy builds."""
    shutil.copytree(built_minimal.root, tmp_path / "project", symlinks=True)
    return ScratchProject(tmp_path / "project")
