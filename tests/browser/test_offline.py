"""The built site works with no network: over http://127.0.0.1 and straight from disk (file://),
no page asks any other host for anything, and navigation, math, diagrams, code copy and the
notebook pages all work. Every test here runs in both modes (the ``site_root`` fixture), but one:
from disk, the accessibility audit checks every page for requests to other hosts."""

from __future__ import annotations

import json
import re

import pytest
from real_chapter import SNIPPETS, approved_output

from .pages import open_page

# A page of each kind: home, math, math + diagram, traceback outputs + tabs, notebook, collapsed answers.
PAGES = [
    "index.html",
    "chain-rule.html",
    "computational-graph.html",
    "common-mistakes.html",
    "exercises/exercise_2_chain_rule.html",
    "interview-questions.html",
]

RAW_TEX = re.compile(r"\\\(|\\\[|\\frac|\\partial|\$\$")


# Over http only: read from disk, every page of the site is checked for the same by the
# accessibility audit, which loads each one anyway (test_accessibility.py).
@pytest.mark.parametrize("site_root", ["http"], indirect=True)
@pytest.mark.parametrize("path", PAGES)
def test_a_page_asks_no_other_host(context, path):
    page = open_page(context, path)
    page.wait_for_load_state("networkidle")
    assert context.recorder.urls, "no request was recorded at all, so the recorder is not working"
    assert context.recorder.foreign() == []


def test_math_and_diagrams_render(context):
    page = open_page(context, "linear-regression.html")
    assert page.locator(".arithmatex .katex").count() >= 5
    assert not RAW_TEX.search(page.locator("article").inner_text())
    diagrams = page.locator("div.mermaid")
    assert diagrams.count() >= 1
    for i in range(diagrams.count()):
        svg = diagrams.nth(i).locator("svg")
        assert svg.count() == 1, f"diagram {i} drew no <svg>"
        assert "Syntax error" not in (svg.text_content() or "")
        box = svg.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50


def test_a_picture_drawn_from_a_run_shows_with_its_text(context):
    """The chain-rule page's graph is inline SVG: visible, sized, and its labels are text, carrying the
    values of its approved picture data."""
    (graph,) = json.loads((SNIPPETS / "chain_rule" / "autograd_check.pictures.json").read_text())
    (leaf,) = [node for node in graph["nodes"] if node.get("leaf")]
    page = open_page(context, "chain-rule.html")
    picture = page.locator("figure.snippet-picture svg")
    assert picture.count() == 1
    box = picture.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100
    assert "AccumulateGrad" in picture.text_content()
    assert f"{leaf['name']} = {leaf['value']}" in picture.text_content()
    assert f"{leaf['name']}.grad = {leaf['grad']}" in page.locator("figure.snippet-picture figcaption").inner_text()


def test_a_notebook_page_renders_math_and_keeps_its_solution_folded(context):
    page = open_page(context, "exercises/exercise_2_chain_rule.html")
    article = page.locator("article")
    assert article.locator(".jp-Notebook, .jupyter-wrapper").count() >= 1
    assert article.locator(".katex").count() >= 3, "the notebook's $...$ math was not typeset"
    assert not RAW_TEX.search(article.inner_text())
    assert "$" not in article.inner_text()
    solution = article.locator("details.solution")
    assert solution.count() == 1 and solution.get_attribute("open") is None
    printed = approved_output("exercises/exercise_2_chain_rule.py").splitlines()
    assert any(line in solution.text_content() for line in printed)  # the real output, inside the folded solution
    download = article.locator("a.notebook-download, .notebook-download a")
    assert download.first.get_attribute("href") == "exercise_2_chain_rule.ipynb"


def test_navigation_links_work(context):
    page = open_page(context, "index.html")
    page.locator(".md-nav--primary a.md-nav__link", has_text="The chain rule").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith("chain-rule.html")
    assert page.locator("article h1").inner_text().rstrip("¶").strip() == "The chain rule"
    page.locator("a.md-footer__link--next").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("computational-graph.html")


def test_code_copy_button_copies(context):
    page = open_page(context, "chain-rule.html")
    # Material shows its copy button on hover and confirms a copy in a dialog.
    block = page.locator(".md-typeset .highlight").first
    block.hover()
    block.locator("button.md-code__button[data-md-type=copy], button.md-clipboard").first.click()
    page.wait_for_selector(".md-dialog--active", timeout=5_000)
    assert "Copied" in page.locator(".md-dialog").inner_text()


def test_every_page_links_to_the_pdf(context, built_site):
    page = open_page(context, "computational-graph.html")
    link = page.get_by_role("link", name="Download PDF")
    assert link.is_visible()
    assert link.get_attribute("href") == "pdf/autograd-part2.pdf"
    assert (built_site / "pdf" / "autograd-part2.pdf").is_file()
    nested = open_page(context, "exercises/exercise_2_chain_rule.html")
    assert nested.get_by_role("link", name="Download PDF").get_attribute("href") == "../pdf/autograd-part2.pdf"
