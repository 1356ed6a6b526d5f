"""Throwaway snippets more than one test module runs (the real chapter is in real_chapter.py), the way
the tests write them, and the way they start a new build on a warm engine."""

import textwrap
from pathlib import Path


def snippet_writer(snippets: Path):
    """``write(rel, code)``: writes ``code`` (dedented) to ``snippets/<rel>`` and returns its path;
    ``write.snippets`` is the folder."""

    def write(rel: str, code: str) -> Path:
        path = snippets / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code).lstrip("\n"), encoding="utf-8")
        return path

    write.snippets = snippets
    return write


def new_build(engine, approval_mode: str):
    """``engine`` as a new build in ``approval_mode`` starts it: nothing remembered, worker warm."""
    engine.approval_mode = approval_mode
    engine.begin_build()
    return engine


# A graph picture drawn from a run: format with x; x = 2 gives x.grad = 60.
GRAPH_SNIPPET = """
# snippet: graph y
import torch

x = torch.tensor({x}, requires_grad=True)
u = 3 * x + 4
y = u ** 2
y.backward()
print(x.grad)
"""
