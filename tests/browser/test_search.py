"""Search finds code identifiers and printed values, from file:// and over http, and the first
result lands on the page and section that teaches each one.

Material lists results grouped by page: a group's first link is the page itself, followed by its
matching sections, best first. "The first result lands on the section" means: the first group is
the expected page, and the first section listed in it is one that teaches the term. Where a page
has two sections on the same identifier (say, what it does and how to call it), both are accepted.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from .pages import open_page, recording_context

EXPECTED = {
    # term typed: (page, sections that teach it)
    "retain_graph": (
        "retain-graph.html",
        {"backward-twice-without-retain_graph", "keeping-the-graph-for-a-second-pass"},
    ),
    "retain_grad": (
        "leaf-tensors.html",
        {"keeping-an-intermediate-gradient-with-retain_grad", "call-retain_grad-before-backward"},
    ),
    "zero_grad": (
        "zeroing-gradients.html",
        {"clearing-a-whole-model-with-optimizerzero_grad", "zero_grad-sets-gradients-to-none-by-default"},
    ),
    "requires_grad": ("first-gradient.html", {"three-steps-in-pytorch-starting-with-requires_grad"}),
    "backward": ("first-gradient.html", {"what-backward-does"}),
    "grad_fn": ("computational-graph.html", {"looking-at-the-recorded-graph-through-grad_fn"}),
    "tensor(60.": ("chain-rule.html", {"letting-autograd-find-the-60"}),
}


def search(page, query: str) -> list[list[str]]:
    """Type ``query`` into the search box; return the result groups, each a list of link URLs.

    Material searches on every keyup, so typing character by character would run one search per
    prefix, and the results of "t" could be read as those of "tensor(60.". So the whole query goes
    into the box at once and one key (End) is pressed: exactly one search runs, for the whole query.
    """
    box = page.locator("input.md-search__input")
    if not box.is_visible():  # on a narrow screen the box opens from the search icon
        page.locator("label.md-header__button[for=__search]").click()
    # A page that searched before still shows that search's results: blank their count, which
    # Material writes again when this search's results come, so they are not read as this one's.
    page.evaluate(
        "() => { const meta = document.querySelector('.md-search-result__meta'); if (meta) meta.textContent = '' }"
    )
    box.fill(query)
    box.press("End")
    page.wait_for_function(
        "() => /matching/i.test(document.querySelector('.md-search-result__meta')?.textContent || '')",
        timeout=15_000,
    )
    assert box.input_value() == query
    groups = page.locator(".md-search-result__item")
    return [groups.nth(i).locator("a").evaluate_all("links => links.map(a => a.href)") for i in range(groups.count())]


@pytest.fixture(scope="module", params=["http", "file"])
def search_page(request, browser, built_site):
    """The home page, from disk or over http, searched again for each term as a reader would: the
    site's search index is loaded once per mode, not once per term."""
    root = request.getfixturevalue("http_root") if request.param == "http" else built_site.as_uri() + "/"
    context = recording_context(browser, root)
    yield open_page(context, "index.html")
    context.close()


@pytest.mark.parametrize("term", EXPECTED)
def test_first_result_is_the_section_that_teaches_it(search_page, term):
    page, context = search_page, search_page.context
    results = search(page, term)
    assert results, f"no result for {term!r}"
    page_url, *sections = results[0]
    expected_page, expected_sections = EXPECTED[term]
    assert urlsplit(page_url).path.endswith("/" + expected_page), f"first result for {term!r}: {page_url}"
    assert sections, f"the first result for {term!r} lists no section"
    assert urlsplit(sections[0]).fragment in expected_sections, f"first section for {term!r}: {sections[0]}"
    assert context.recorder.foreign() == []


def test_following_a_result_opens_the_section(search_page):
    """On the searching page too: it leaves for the result, and a search after this one (if this
    worker runs any) starts again from there, with that page's own copy of the index."""
    page = search_page
    search(page, "grad_fn")
    page.locator(".md-search-result__item").first.locator("a").nth(1).click()  # its first section
    page.wait_for_load_state("load")
    assert urlsplit(page.url).fragment == "looking-at-the-recorded-graph-through-grad_fn"
    assert page.locator("#looking-at-the-recorded-graph-through-grad_fn").is_visible()
