"""The guides a new author reads: one spelling (American, as AUTHORING.md asks), every file they
link to exists, and AUTHORING.md walks through adding a page with the commands it names."""

from __future__ import annotations

import re

import pytest
from chapter.test_site import BRITISH
from real_chapter import ROOT

GUIDES = ["README.md", "AUTHORING.md", "dev/internals.md"]


@pytest.mark.parametrize("guide", GUIDES)
def test_the_guides_use_american_spelling(guide):
    text = (ROOT / guide).read_text(encoding="utf-8")
    found = [f"{guide}:{n}: {m}" for n, line in enumerate(text.splitlines(), 1) for m in BRITISH.findall(line)]
    assert found == []


@pytest.mark.parametrize("guide", GUIDES)
def test_every_file_a_guide_links_to_exists(guide):
    path = ROOT / guide
    prose = re.sub(r"(`+).+?\1", "", path.read_text(encoding="utf-8"), flags=re.S)  # not examples in code
    targets = re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", prose)
    missing = [t for t in targets if not (path.parent / t).exists()]
    assert missing == []


def test_authoring_walks_through_adding_a_page():
    text = (ROOT / "AUTHORING.md").read_text(encoding="utf-8")
    walk = text[text.index("## Adding a page, end to end") : text.index("## Showing an example")]
    for step in ["**The file.**", "**The navigation.**", "**An example.**", "**A picture.**", "**Approval.**"]:
        assert step in walk
    assert "python -m snippet_runner accept higher_order/grad_twice.py" in walk
    assert "no\n   neighboring page needs editing" in walk or "no neighboring page needs editing" in walk
    assert "#backward-twice-without-retain_graph" in walk  # how an anchor is spelled
    assert "`make test` adds" in walk.replace("\n   ", " ") or "test` adds" in walk


def test_the_anchors_authoring_spells_out_are_the_ones_python_markdown_makes():
    from markdown.extensions.toc import slugify

    text = " ".join((ROOT / "AUTHORING.md").read_text(encoding="utf-8").split())
    examples = re.findall(r'"([^"]+)" is `#([^`]+)`', text)
    assert len(examples) >= 3
    for heading, anchor in examples:
        assert slugify(heading, "-") == anchor, heading
