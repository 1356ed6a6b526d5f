"""The worker is warmed, before it forks, with what the snippets use (warmup.py): a fork pays no
first-use cost the worker already paid. Measured by what the fork had to import, never by time."""

from __future__ import annotations

import pytest
from real_chapter import chapter_snippets

from snippet_runner import Engine
from snippet_runner.checking.engine import workers_for
from snippet_runner.running.warmup import touched, touched_by

# Prints how many modules building and stepping an optimizer imported in this process.
OPTIMIZER = """
import sys

import torch

before = set(sys.modules)
w = torch.tensor([1.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
(w * 3).sum().backward()
optimizer.step()
optimizer.zero_grad()
print("imported while building an optimizer:", len(set(sys.modules) - before))
"""

# The same, but the snippet that names the optimizer is another one, in the same folder.
BARE = """
import sys

import torch

before = set(sys.modules)
w = torch.tensor([1.0], requires_grad=True)
optimizer = getattr(torch.optim, "S" + "GD")([w], lr=0.1)  # no name a reader of the code could see
print("imported while building an optimizer:", len(set(sys.modules) - before))
"""


# Draws from the random number generator itself (a Linear's initial weights), so its state differs.
DRAWS = (
    "import torch\n\nlayer = torch.nn.Linear(2, 2)\nstate = torch.get_rng_state()\n"
    "torch.manual_seed(torch.initial_seed())\nprint(torch.equal(state, torch.get_rng_state()))\n"
)


def imported(engine: Engine, rel: str) -> int:
    return int(engine.run(rel).output.split(":")[-1])


@pytest.fixture(scope="module")
def warmed(tmp_path_factory):
    """One engine with the default warm-up (one torch import for the tests that need no other
    setting), over a folder holding all their snippets before its worker starts, as a build's does:
    ``step.py`` and ``named.py`` name the optimizer, ``bare.py`` only builds it, ``draw.py`` names
    ``torch.nn.Linear``. Each test runs its snippet in a fork, as a new build."""
    snippets = tmp_path_factory.mktemp("snippets")
    (snippets / "page").mkdir()
    (snippets / "page" / "step.py").write_text(OPTIMIZER)
    (snippets / "page" / "named.py").write_text("import torch\n\nprint(torch.optim.SGD)\n")
    (snippets / "page" / "bare.py").write_text(BARE)
    (snippets / "page" / "draw.py").write_text(DRAWS)
    engine = Engine(snippets, approval_mode="warn")
    yield engine
    engine.close()


@pytest.mark.parametrize("warm_up", [True, False])
def test_a_snippet_that_builds_an_optimizer_imports_nothing_the_worker_could_have(tmp_path, request, warm_up):
    if warm_up:
        engine = request.getfixturevalue("warmed")
        engine.begin_build()
        assert imported(engine, "page/step.py") == 0
        return
    snippets = tmp_path / "snippets"
    (snippets / "page").mkdir(parents=True)
    (snippets / "page" / "step.py").write_text(OPTIMIZER)
    engine = Engine(snippets, approval_mode="warn", warm_up=False)
    try:
        count = imported(engine, "page/step.py")
    finally:
        engine.close()
    assert count > 100  # the check can fail: without the warm-up the fork pays torch's lazy set-up itself


def test_what_one_snippet_names_warms_the_worker_for_every_snippet(warmed):
    warmed.begin_build()
    assert "torch.optim.SGD" in warmed.warm_names() and "SGD" not in BARE
    assert imported(warmed, "page/bare.py") == 0


def test_names_from_the_settings_are_warmed_too(tmp_path):
    snippets = tmp_path / "snippets"
    (snippets / "page").mkdir(parents=True)
    (snippets / "page" / "bare.py").write_text(BARE)
    engine = Engine(snippets, approval_mode="warn", warm_up=False, warm_up_names=("torch.optim.SGD",))
    try:
        assert engine.warm_names() == ("torch.optim.SGD",)
        assert imported(engine, "page/bare.py") == 0
    finally:
        engine.close()


def test_the_warm_up_leaves_the_random_number_generator_as_it_found_it(warmed, monkeypatch):
    """Rehearsing a module class builds it, and a module's initial weights draw from the random
    number generator; its state is put back, so an unseeded snippet's fork starts from the state
    torch was seeded with (in-process here, with a module class that draws; then in a real fork of
    a worker warmed with ``torch.nn.Linear``)."""
    import sys
    import types

    import torch

    from snippet_runner.running.warmup import warm

    built = []

    class Drawing(torch.nn.Module):
        def __init__(self):
            super().__init__()
            built.append(torch.rand(1))

    monkeypatch.setitem(sys.modules, "warm_probe", types.SimpleNamespace(Drawing=Drawing))
    before = torch.get_rng_state()
    assert warm(["warm_probe.Drawing", "warm_probe.Missing"]) == ["warm_probe.Missing"]
    assert len(built) == 1 and torch.equal(torch.get_rng_state(), before)

    draw = warmed.snippets_dir / "page" / "draw.py"
    try:
        warmed.begin_build()
        assert warmed.run("page/draw.py").output == "False\n"  # the snippet's own layer drew
        assert "torch.nn.Linear" in warmed.warm_names()
        draw.write_text(
            "import torch\n\nstate = torch.get_rng_state()\ntorch.manual_seed(torch.initial_seed())\n"
            "print(torch.equal(state, torch.get_rng_state()), torch.nn.Linear)\n"
        )
        warmed.begin_build()
        assert warmed.run("page/draw.py").output.startswith("True")  # nothing drew before it
    finally:
        draw.write_text(DRAWS)


def test_what_a_snippet_touches_is_read_from_its_syntax_tree():
    source = """
import math
import torch.nn as nn
from torch.optim import SGD as Descent
from torch import autograd
import torch

layer = nn.Linear(1, 1)
Descent(layer.parameters())
autograd.grad
torch.optim.Adam
x = torch.tensor(1.0)
x.backward()
"""
    found = touched(source)
    assert {"math", "torch.nn.Linear", "torch.optim.SGD", "torch.autograd.grad", "torch.optim.Adam"} <= found
    assert not any("backward" in name or name.startswith("x.") for name in found)  # not a module's name
    assert touched("def broken(:\n") == set()
    # Only what the preloaded packages hold is warmed: the worker imports nothing else a snippet names.
    assert touched_by([source, "import helpers\nhelpers.setup()\n"], ["torch"]) == (
        "torch",
        "torch.autograd",
        "torch.autograd.grad",
        "torch.nn",
        "torch.nn.Linear",
        "torch.optim",
        "torch.optim.Adam",
        "torch.optim.SGD",
        "torch.tensor",
    )


def test_a_second_worker_starts_only_for_more_snippets_than_the_chapter_has():
    """A second worker's torch import and warm-up cost more than it saves on the chapter's
    snippets: it would take the core the build uses while the first one starts."""
    chapter = len(chapter_snippets())
    assert workers_for(chapter, 2) == 1
    assert workers_for(1000, 2) == 2 and workers_for(1000, 1) == 1 and workers_for(0, 2) == 1
