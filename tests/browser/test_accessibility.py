"""WCAG 2.2 AA on every page of the built site: axe-core (from npm) in both palettes, on a desktop
and a phone, the notebook pages, the print page and the 404 page included; text alternatives for
every image and diagram; a skip link and a language on every page; and every block that scrolls
reachable and scrollable from the keyboard.

The pages are read from disk (file://), the harder case: the site must work there, and the 404
page used to come out unstyled there. Moderate and minor findings are reported by
``python -m tests.browser.audit site/`` but do not fail the tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .audit import (
    MATERIAL_SCHEME,
    PRINT_PAGE,
    REPORT,
    RULES,
    SCHEMES,
    WIDTHS,
    audit_pages,
    axe_source,
    describe,
    new_context,
    site_pages,
    widths_of,
)
from .pages import wait_until_rendered

FAILING_IMPACTS = {"critical", "serious"}
ROOT = Path(__file__).resolve().parents[2]
DIAGRAMS = sum(p.read_text(encoding="utf-8").count("```mermaid") for p in (ROOT / "docs").rglob("*.md"))


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


@pytest.fixture(scope="module")
def audits(browser, built_site, axe):
    """{scheme: {(width, path): result}}: each palette audited (every page, both widths) once, when
    a test first asks for it; the two tests of a palette share an xdist group, so one worker does it."""
    done = {}

    def get(scheme: str) -> dict:
        if scheme not in done:
            context = new_context(browser, scheme)
            try:
                done[scheme] = audit_pages(
                    context, built_site.as_uri() + "/", site_pages(built_site), axe, RULES[scheme]
                )
            finally:
                context.close()
        return done[scheme]

    return get


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", [pytest.param(s, marks=pytest.mark.xdist_group(f"axe-{s}")) for s in SCHEMES])
def test_every_page_passes_axe_and_names_its_images(built_site, audits, scheme, width):
    pages = site_pages(built_site)
    assert len(pages) >= 30 and {"404.html", "print_page.html", "exercises/exercise_2_chain_rule.html"} <= set(pages)
    results = {path: r for (w, path), r in audits(scheme).items() if w == width}
    assert sorted(results) == [path for path in pages if width in widths_of(path)]
    wrong_scheme = [path for path, r in results.items() if r["scheme"] != MATERIAL_SCHEME[scheme]]
    assert wrong_scheme == [], f"the {scheme} palette did not take effect on {wrong_scheme}"
    failures = [
        line
        for path, r in results.items()
        for line in describe(path, [v for v in r["violations"] if v["impact"] in FAILING_IMPACTS])
    ]
    assert failures == [], "\n".join(failures)
    missing = [f"{path}: {m}" for path, r in results.items() for m in r["missing"]]
    assert missing == [], "\n".join(missing)
    drawn = sum(r["diagrams"] for path, r in results.items() if path != PRINT_PAGE)
    assert drawn == DIAGRAMS, f"{drawn} diagrams found on the pages, {DIAGRAMS} in docs/, so their check is void"


def test_every_page_has_a_language_and_a_skip_link_to_its_content(built_site):
    from bs4 import BeautifulSoup

    problems = []
    for path in site_pages(built_site):
        soup = BeautifulSoup((built_site / path).read_text(encoding="utf-8"), "html.parser")
        if not (soup.html.get("lang") or "").startswith("en"):
            problems.append(f"{path}: <html lang> is {soup.html.get('lang')!r}")
        skip = soup.select_one("a.md-skip[href^='#']")
        if skip is None:
            problems.append(f"{path}: no skip link")
        elif soup.find(id=skip["href"][1:]) is None:
            problems.append(f"{path}: the skip link points at {skip['href']}, which is not on the page")
    assert problems == []


@pytest.mark.parametrize("path", ["index.html", "exercises/exercise_2_chain_rule.html", "404.html"])
def test_the_first_tab_reaches_the_skip_link_and_it_moves_focus_to_the_content(browser, built_site, path):
    page = browser.new_page(viewport=WIDTHS["desktop"])
    try:
        page.goto((built_site / path).as_uri())
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => [document.activeElement.classList.contains('md-skip'), document.activeElement.textContent.trim()]"
        )
        assert focused == [True, "Skip to content"]
        # Material fades the link in when it takes the focus
        page.wait_for_function("() => getComputedStyle(document.activeElement).opacity === '1'", timeout=5_000)
        page.keyboard.press("Enter")
        assert page.evaluate(
            "() => location.hash.length > 1 && document.getElementById(location.hash.slice(1)) !== null"
        )
    finally:
        page.close()


def test_a_notebook_code_block_that_scrolls_can_be_reached_and_scrolled_with_the_keyboard(browser, built_site):
    context = new_context(browser, "light", "phone")
    try:
        page = context.new_page()
        page.goto((built_site / "exercises/exercise_2_chain_rule.html").as_uri())
        wait_until_rendered(page)
        scrollers = page.locator(".jupyter-wrapper .highlight-ipynb[tabindex='0']")
        assert scrollers.count() >= 1, "no notebook code block scrolls on a phone, so this test checks nothing"
        target = scrollers.first.evaluate_handle("el => el")
        for _ in range(300):  # Tab through the page until the block has the focus
            page.keyboard.press("Tab")
            if page.evaluate("el => document.activeElement === el", target):
                break
        else:
            pytest.fail("Tab never reached the scrolling code block")
        assert page.evaluate("el => el.scrollLeft", target) == 0
        page.keyboard.press("ArrowRight")
        page.keyboard.press("End")
        page.wait_for_function("el => el.scrollLeft > 0", arg=target, timeout=5_000)
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_execution_report_passes_axe_with_every_rule(browser, built_site, axe, width):
    """The one page of the site without the theme: the build's report for authors."""
    html = (built_site / REPORT).read_text(encoding="utf-8")
    assert '<html lang="en">' in html
    page = browser.new_page(viewport=WIDTHS[width])
    try:
        page.goto((built_site / REPORT).as_uri())
        page.add_script_tag(content=axe)
        violations = page.evaluate("() => axe.run(document).then(r => r.violations)")
    finally:
        page.close()
    assert page_rows(html) > 50, "the report lists every snippet"
    assert [v["id"] for v in violations if v["impact"] in FAILING_IMPACTS] == []


def page_rows(html: str) -> int:
    return html.count("<tr>") - 1
