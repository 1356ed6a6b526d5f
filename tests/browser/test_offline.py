"""The built site works with no network: over http://127.0.0.1 and straight from disk (file://),
no page asks any other host for anything, and navigation, math, diagrams, code copy and the
notebook pages all work. Every test here runs in both modes (the ``site`` fixture), but one: from
disk, the accessibility audit checks every page for requests to other hosts.

One browser context per mode serves the module, and a page the tests only read is loaded once in
it (``Site.page``); a test that clicks gets a page of its own (``Site.fresh``)."""

from __future__ import annotations

import json
import re

import pytest
from real_chapter import SNIPPETS, approved_output

from .pages import open_page, recording_context

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


class Site:
    """The built site in one browser context that records every request (``recorder``)."""

    def __init__(self, context):
        self.context, self.recorder, self.root = context, context.recorder, context.root
        self.loaded: dict[str, object] = {}

    def page(self, path: str):
        """``path``, rendered, loaded once for all the tests that only read it."""
        if path not in self.loaded:
            self.loaded[path] = open_page(self.context, path)
        return self.loaded[path]

    def fresh(self, path: str):
        """``path`` in a page of its own, for a test that changes what it shows."""
        return open_page(self.context, path)


@pytest.fixture(scope="module", params=["http", "file"])
def site(request, browser, built_site):
    """The site over http://127.0.0.1 or from disk, in a context that aborts any request to another host."""
    root = request.getfixturevalue("http_root") if request.param == "http" else built_site.as_uri() + "/"
    context = recording_context(browser, root)
    yield Site(context)
    context.close()


# Over http only: read from disk, every page of the site is checked for the same by the
# accessibility audit, which loads each one anyway (test_accessibility.py).
@pytest.mark.parametrize("site", ["http"], indirect=True)
@pytest.mark.parametrize("path", PAGES)
def test_a_page_asks_no_other_host(site, path):
    page = site.page(path)
    page.wait_for_load_state("networkidle")
    assert site.root + path in site.recorder.urls, "the page's load was not recorded, so the recorder is not working"
    assert site.recorder.foreign() == []  # of every page loaded in this context so far


def test_math_and_diagrams_render(site):
    page = site.page("linear-regression.html")
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


def test_a_picture_drawn_from_a_run_shows_with_its_text(site):
    """The chain-rule page's graph is inline SVG: visible, sized, and its labels are text, carrying the
    values of its approved picture data."""
    (graph,) = json.loads((SNIPPETS / "chain_rule" / "autograd_check.pictures.json").read_text())
    (leaf,) = [node for node in graph["nodes"] if node.get("leaf")]
    page = site.page("chain-rule.html")
    picture = page.locator("figure.snippet-picture svg")
    assert picture.count() == 1
    box = picture.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100
    assert "AccumulateGrad" in picture.text_content()
    assert f"{leaf['name']} = {leaf['value']}" in picture.text_content()
    assert f"{leaf['name']}.grad = {leaf['grad']}" in page.locator("figure.snippet-picture figcaption").inner_text()


def test_a_notebook_page_renders_math_and_keeps_its_solution_folded(site):
    page = site.page("exercises/exercise_2_chain_rule.html")
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


def test_navigation_links_work(site):
    page = site.fresh("index.html")
    page.locator(".md-nav--primary a.md-nav__link", has_text="The chain rule").first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith("chain-rule.html")
    assert page.locator("article h1").inner_text().rstrip("¶").strip() == "The chain rule"
    page.locator("a.md-footer__link--next").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("computational-graph.html")


def test_code_copy_button_copies(site):
    page = site.fresh("chain-rule.html")
    # Material shows its copy button on hover and confirms a copy in a dialog.
    block = page.locator(".md-typeset .highlight").first
    block.hover()
    block.locator("button.md-code__button[data-md-type=copy], button.md-clipboard").first.click()
    page.wait_for_selector(".md-dialog--active", timeout=5_000)
    assert "Copied" in page.locator(".md-dialog").inner_text()


def test_every_page_links_to_the_pdf(site, built_site):
    page = site.page("computational-graph.html")
    link = page.get_by_role("link", name="Download PDF")
    assert link.is_visible()
    assert link.get_attribute("href") == "pdf/autograd-part2.pdf"
    assert (built_site / "pdf" / "autograd-part2.pdf").is_file()
    nested = site.page("exercises/exercise_2_chain_rule.html")
    assert nested.get_by_role("link", name="Download PDF").get_attribute("href") == "../pdf/autograd-part2.pdf"
