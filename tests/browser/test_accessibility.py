"""WCAG 2.2 AA on every page of the built site: axe-core (from npm) in both palettes, on a desktop
and a phone, the notebook pages, the print page and the 404 page included; text alternatives for
every image and diagram; a skip link and a language on every page; and every block that scrolls
reachable and scrollable from the keyboard. The same page loads check that no page, read from disk,
asks another host for anything, check each reading page's layout (layout.py), and save screenshots of a few pages, light and dark, desktop and phone, outside the
repository ($SCREENSHOT_DIR, default /tmp/autograd-site-screenshots) for a person to look at.

The pages are read from disk (file://), the harder case: the site must work there, and the 404
page used to come out unstyled there. Moderate and minor findings are reported by
``python -m tests.browser.audit site/`` but do not fail the tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest

from snippet_runner.site import chromium

from .audit import (
    CHROME,
    CHROME_PAGES,
    MATERIAL_SCHEME,
    OWN,
    PLAYER_PAIRS,
    PRINT_PAGE,
    SCHEMES,
    SCREENSHOTS,
    WIDTHS,
    audit_pages,
    axe_source,
    describe,
    new_context,
    site_pages,
    widths_of,
)
from .audit_cache import AUDITED, AuditCache
from .layout import PAGES as LAYOUT_PAGES
from .pages import wait_until_rendered
from .player import player_problems

FAILING_IMPACTS = {"critical", "serious"}
ROOT = Path(__file__).resolve().parents[2]
GRAPH = '<figure class="snippet-picture snippet-picture-graph"'  # a picture of a graph, with a player
DIAGRAMS = sum(p.read_text(encoding="utf-8").count("```mermaid") for p in (ROOT / "docs").rglob("*.md"))


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


CHUNKS = 6  # the pages other than the print page, audited in this many tests (spread over the workers)
PARTS = [f"pages-{i + 1}-of-{CHUNKS}" for i in range(CHUNKS)] + ["print-page"]


def pages_of(part: str, built_site: Path) -> list[str]:
    """The pages one test audits: a sixth of the site's pages, or the print page (the heaviest)."""
    pages = site_pages(built_site)
    assert len(pages) >= 30 and {"404.html", PRINT_PAGE, "exercises/exercise_2_chain_rule.html"} <= set(pages)
    if part == "print-page":
        return [PRINT_PAGE]
    return [path for path in pages if path != PRINT_PAGE][PARTS.index(part) :: CHUNKS]


def diagrams_on(path: str) -> int:
    """How many Mermaid diagrams the page's Markdown source holds (the print page holds them all)."""
    if path == PRINT_PAGE:
        return DIAGRAMS
    source = ROOT / "docs" / path.replace(".html", ".md")
    return source.read_text(encoding="utf-8").count("```mermaid") if source.is_file() else 0


@pytest.mark.parametrize("part", PARTS)
def test_every_page_passes_axe_and_names_its_images(browser, chromium_path, built_site, axe, part, record_property):
    """Each test audits its pages in both palettes at both widths (audit.py): seven tests of a few
    pages each, so pytest-xdist spreads the work over both cores. The light palette's steps also
    serve layout.py's checks of the reading pages, at both widths; every player under a graph
    picture (test_backward_steps.py) is audited at its busiest step, and measured (player.py). A page whose inputs are all as
    an earlier audit on this machine saw them takes that audit's results (audit_cache.py;
    ``AUDIT_CACHE=0`` audits every page)."""
    pages = pages_of(part, built_site)
    started = time.time()
    options = {"layout": True, "screenshots": True, "players": True}
    cache = AuditCache.for_site(built_site, axe, chromium.version(chromium_path), **options)
    if cache is not None and part == PARTS[0]:
        cache.prune()
    results = audit_pages(browser, built_site.as_uri() + "/", pages, axe, cache=cache, **options)
    record_property(AUDITED, [len(pages), len(cache.hits) if cache else 0])  # for the run's summary line
    assert sorted(results) == sorted((s, w, p) for p in pages for s in SCHEMES for w in widths_of(p))
    whole = sorted(key for key, r in results.items() if "diagrams" in r)
    assert whole == sorted(key for key in results if key[:2] != ("dark", "desktop")), "a whole-page step was skipped"
    wrong_scheme = [f"{s}/{w} {p}" for (s, w, p), r in results.items() if r["scheme"] != MATERIAL_SCHEME[s]]
    assert wrong_scheme == [], f"the palette did not take effect on {wrong_scheme}"
    failures = [
        line
        for (scheme, width, path), r in results.items()
        for line in describe(f"{scheme}/{width} {path}", [v for v in r["violations"] if v["impact"] in FAILING_IMPACTS])
    ]
    assert failures == [], "\n".join(failures)
    missing = [f"{scheme}/{width} {path}: {m}" for (scheme, width, path), r in results.items() for m in r["missing"]]
    assert missing == [], "\n".join(missing)
    miscounted = [
        f"{scheme}/{width} {path}: {r['diagrams']} diagrams drawn, {diagrams_on(path)} in its source"
        for (scheme, width, path), r in results.items()
        if r.get("diagrams", diagrams_on(path)) != diagrams_on(path)
    ]
    assert miscounted == [], "the diagrams were not all found, so their check is partly void: " + "; ".join(miscounted)
    laid_out = sorted((w, p) for (_, w, p), r in results.items() if "layout" in r)
    assert laid_out == sorted((w, p) for p in pages if p in LAYOUT_PAGES for w in WIDTHS), "a layout check was skipped"
    wrong = [f"{p} at {w} width: {problem}" for (_, w, p), r in results.items() for problem in r.get("layout", [])]
    assert wrong == [], "\n".join(wrong)
    # The players under the graph pictures, each audited above at its busiest step, measured there
    # (the lit colours' contrast, the fit, the buttons' sizes) in a palette and at a width each.
    graphs = [p for p in pages if p != PRINT_PAGE and GRAPH in (built_site / p).read_text(encoding="utf-8")]
    played = sorted(key for key, r in results.items() if "players" in r)
    assert played == sorted((s, w, p) for p in graphs for s, w in PLAYER_PAIRS), "a player was not measured"
    players = [
        line
        for (s, w, p), r in results.items()
        if "players" in r
        for line in player_problems(f"{s}/{w} {p}", **r["players"])
    ]
    assert players == [], "\n".join(players)
    # The same loads, from disk, show that no page asks another host for anything (test_offline.py
    # checks a page of each kind over http): every request each page made, over all its steps.
    foreign = sorted({f"{p}: {url}" for (_, _, p), r in results.items() for url in r["foreign"]})
    assert foreign == [], "\n".join(foreign)
    shot = {key: r["screenshot"] for key, r in results.items() if "screenshot" in r}
    assert sorted(shot) == sorted(key for key in results if key[2] in SCREENSHOTS), "a screenshot was not taken"
    stale = [
        file for file in shot.values() if Path(file).stat().st_mtime < started - 1 or Path(file).stat().st_size < 10_000
    ]
    assert stale == [], f"not written by this run, or empty: {stale}"


def test_every_page_has_a_language_and_a_skip_link_to_its_content(built_site):
    """Read from each page's text: the <html> and skip-link tags (each parsed alone), and the id the
    link points at (the print page alone is a few megabytes of markup to parse whole)."""
    from bs4 import BeautifulSoup

    def tag(html: str, pattern: str):
        found = re.search(pattern, html)
        return BeautifulSoup(found[0], "html.parser").find(True) if found else None

    problems = []
    for path in site_pages(built_site):
        html = (built_site / path).read_text(encoding="utf-8")
        root = tag(html, r"<html\b[^>]*>")
        if root is None or not (root.get("lang") or "").startswith("en"):
            problems.append(f"{path}: <html lang> is {root and root.get('lang')!r}")
        skip = tag(html, r"<a\b[^>]*\bclass=[\"']?md-skip\b[^>]*>")
        if skip is None or not skip.get("href", "").startswith("#"):
            problems.append(f"{path}: no skip link")
        elif not re.search(rf"""\sid=["']?{re.escape(skip["href"][1:])}["'\s>]""", html):
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


def test_the_execution_report_passes_axe_with_every_rule(browser, session_build, axe):
    """The one page without the theme: the build's report for authors (outside the site), loaded
    once and audited at each width."""
    html = session_build.report.read_text(encoding="utf-8")
    assert '<html lang="en">' in html
    page = browser.new_page(viewport=WIDTHS["desktop"])
    violations = {}
    try:
        page.goto(session_build.report.as_uri())
        page.add_script_tag(content=axe)
        for width in WIDTHS:
            page.set_viewport_size(WIDTHS[width])
            violations[width] = page.evaluate("() => axe.run(document).then(r => r.violations)")
    finally:
        page.close()
    assert page_rows(html) > 50, "the report lists every snippet"
    failing = {width: [v["id"] for v in found if v["impact"] in FAILING_IMPACTS] for width, found in violations.items()}
    assert failing == {width: [] for width in WIDTHS}


def page_rows(html: str) -> int:
    return html.count("<tr>") - 1


# Text that fails the contrast check in one palette and width only, each where one step of the
# audit plan alone should see it (audit.py's STEPS): the content in each palette, the frame (the
# header) at the width and palette the content's own checks never visit, and the page's own parts
# of the frame (its table of contents, its title in the header). {probe: (palette, width)}
PROBES = {
    "probe-light-content": ("light", "desktop"),
    "probe-dark-content": ("dark", "phone"),
    "probe-phone-frame": ("light", "phone"),
    "probe-wide-dark-frame": ("dark", "desktop"),
    "probe-dark-toc": ("dark", "desktop"),
    "probe-light-title": ("light", "desktop"),
}
CHROME_PROBES = {"probe-phone-frame", "probe-wide-dark-frame"}  # in the chrome (audit.py's CHROME)
PROBE_STYLE = """<style>
  .probe-light-content { color: #c8c8c8 }
  .probe-dark-content { color: #3a3a3a }
  .probe-phone-frame, .probe-wide-dark-frame, .probe-light-title { color: inherit }
  [data-md-color-scheme=slate] .md-nav__link.probe-dark-toc { color: #3a3a3a }
  @media (max-width: 44.984375em) { [data-md-color-scheme=default] .probe-phone-frame { color: color-mix(in srgb, var(--md-primary-fg-color) 75%, white) } }
  @media (min-width: 45em) { [data-md-color-scheme=slate] .probe-wide-dark-frame { color: color-mix(in srgb, var(--md-primary-fg-color) 75%, white) } }
  @media (min-width: 45em) { [data-md-color-scheme=default] .probe-light-title { color: color-mix(in srgb, var(--md-primary-fg-color) 75%, white) } }
</style>"""


def probe_page(html: str) -> str:
    """The home page with every probe in place."""
    html = html.replace("</head>", PROBE_STYLE + "</head>", 1)
    content = '<p class="probe-light-content">light</p><p class="probe-dark-content">dark</p>'
    html = html.replace(
        '<article class="md-content__inner md-typeset">', '<article class="md-content__inner md-typeset">' + content, 1
    )
    frame = '<span class="probe-phone-frame">phone</span><span class="probe-wide-dark-frame">wide</span>'
    html = html.replace('<div class="md-header__title"', frame + '<div class="md-header__title"', 1)
    title = '<div class="md-header__ellipsis">'
    html = html.replace(title, title + '<span class="probe-light-title">title</span>', 1)
    toc = 'data-md-component="toc" data-md-scrollfix>'  # the last: the sidebar's (the first is in the navigation)
    before, after = html.rsplit(toc, 1)
    html = (
        before + toc + '<li class="md-nav__item"><a href="#" class="md-nav__link probe-dark-toc">toc</a></li>' + after
    )
    assert html.count("probe-") >= len(PROBES) * 2
    return html


def test_each_step_of_the_audit_sees_the_contrast_failure_it_alone_is_there_for(browser, built_site, axe, tmp_path):
    """The audit checks colours where they can differ, not everywhere (audit.py): so a probe page
    (the home page, beside links to the built site's files, which stays as built) carries text that
    fails in one palette at one width only, in the content, in the header and in the page's own
    parts of the frame, and each failure must be found exactly where its step looks. The same page
    again, as any other page of its kind (the chrome left to the first, audit.py's CHROME): the
    page's own failures are found as on the first, the chrome's on the first only. That is the
    control for leaving the chrome out: a contrast failure in the chrome is caught, on the page of
    the kind that is audited whole (and every page's chrome is that page's:
    test_every_page_of_a_kind_has_the_same_chrome)."""
    for entry in built_site.iterdir():
        (tmp_path / entry.name).symlink_to(entry)
    html = probe_page((built_site / "index.html").read_text(encoding="utf-8"))
    for name in ("probe.html", "probe-other.html"):
        (tmp_path / name).write_text(html, encoding="utf-8")
    pages = ["probe.html", "probe-other.html"]
    results = audit_pages(browser, tmp_path.as_uri() + "/", pages, axe, chrome_pages={"probe.html"})
    seen = {
        (page, probe): sorted(
            key[:2]
            for key, r in results.items()
            if key[2] == page
            for v in r["violations"]
            if v["id"] == "color-contrast"
            for n in v["nodes"]
            if probe in n["target"]
        )
        for page in pages
        for probe in PROBES
    }
    assert seen == {
        (page, probe): [] if page != "probe.html" and probe in CHROME_PROBES else [where]
        for page in pages
        for probe, where in PROBES.items()
    }


def test_every_page_of_a_kind_has_the_same_chrome(built_site):
    """What lets the audit leave the chrome out of all but one page of a kind (audit.py's CHROME):
    on every page, the chrome, less the page's own parts (OWN, its active entry, its expanded section),
    with every link resolved, is the chrome of the kind's CHROME_PAGES page, byte for byte; and so
    is what styles it: the stylesheets, the scripts, and no <style> in the page sets a colour."""
    from bs4 import BeautifulSoup

    def chrome_of(path: str) -> tuple[str, str, list[str]]:
        html = (built_site / path).read_text(encoding="utf-8")
        kind = "notebook" if 'class="jupyter-wrapper"' in html else "Markdown"
        head, body = html.split("</head>", 1)
        styles = [style for style in re.findall(r"<style[^>]*>(.*?)</style>", body, re.S) if STYLING.search(style)]
        # parsed: the head and the chrome (the content, the most of a page, cut out first)
        frame = body[body.index('<header class="md-header') : body.index('<div class="md-content"')]
        soup = BeautifulSoup(
            head + "</head><body>" + frame + body[body.index('<footer class="md-footer"') :], "html.parser"
        )
        styled = [urljoin(path, t["href"]) for t in soup.head.select("link[rel=stylesheet]")]
        scripts = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"", html)
        styled += [urljoin(path, src) for src in scripts if "/mermaid/" not in src]
        styled += [t.get_text() for t in soup.head.select("style")] + styles
        for el in soup.select(", ".join([*OWN, "#__toc", "label[for=__toc]"])):  # the page's own entry, less the mark
            el.decompose()
        parts = []
        roots = soup.select(", ".join(CHROME))
        assert len(roots) == len(CHROME), f"{path}: {len(roots)} elements for {CHROME}"
        for el in roots:
            for tag in el.find_all(True):
                for name in ("checked", "aria-expanded"):  # the active entry's section is the one open
                    tag.attrs.pop(name, None)
                if "class" in tag.attrs:
                    tag["class"] = [c for c in tag["class"] if not c.endswith("--active")]
                for name in ("href", "src"):
                    if tag.get(name):
                        tag[name] = urljoin(path, tag[name])
            parts.append(str(el))
        return kind, re.sub(r">\s+<", "><", re.sub(r"\s+", " ", "".join(parts))), styled

    found = {path: chrome_of(path) for path in CHROME_PAGES}
    assert [kind for kind, _, _ in found.values()] == list(CHROME_PAGES.values())
    ours = {kind: (chrome, styled) for kind, chrome, styled in found.values()}
    assert all(chrome.count('class="md-nav__link"') >= 40 for chrome, _ in ours.values()), "no navigation found"
    differ = []
    for path in site_pages(built_site):
        if path not in (PRINT_PAGE, "404.html"):
            kind, chrome, styled = chrome_of(path)
            if (chrome, styled) != ours[kind]:
                differ.append(f"{path} ({kind})")
    assert differ == [], "chrome unlike its kind's page, so audit.py's CHROME_PAGES do not stand for it"


STYLING = re.compile(r"color|background|opacity|filter|visibility|display|font|content")


def test_an_unchanged_page_takes_its_earlier_audit_and_any_change_to_what_it_loaded_audits_it_again(
    browser, chromium_path, built_site, axe, tmp_path, monkeypatch
):
    """audit_cache.py, on a copy of the built site (links to its files, but for the page and one
    stylesheet, which are copies the test changes): the first audit is stored, the second is read
    back equal without loading the page, and a change to the page or to a file it loaded, or
    ``AUDIT_CACHE=0``, means auditing it again."""
    site = tmp_path / "site"
    site.mkdir()
    for entry in built_site.iterdir():
        if entry.name != "assets":
            (site / entry.name).symlink_to(entry)
    for folder in ("assets", "assets/snippet-runner"):  # real folders, so the copies below replace only links
        (site / folder).mkdir()
        for entry in (built_site / folder).iterdir():
            if f"{folder}/{entry.name}" != "assets/snippet-runner":
                (site / folder / entry.name).symlink_to(entry)
    for rel in ("404.html", "assets/snippet-runner/snippets.css"):
        (site / rel).unlink()
        shutil.copyfile(built_site / rel, site / rel)
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUDIT_CACHE", raising=False)
    version = chromium.version(chromium_path)

    def audit():
        cache = AuditCache.for_site(site, axe, version)
        return cache, audit_pages(browser, site.as_uri() + "/", ["404.html"], axe, cache=cache)

    first_cache, first = audit()
    assert (first_cache.hits, first_cache.stored) == ([], ["404.html"])
    (entry,) = (tmp_path / "cache").rglob("*.json")
    loaded = json.loads(entry.read_text())["files"]
    assert {"404.html", "assets/snippet-runner/snippets.css", "assets/vendor/katex/katex.min.js"} <= set(loaded)
    assert "search/search_index.js" in loaded, "what a script loaded later is not listed"
    again_cache, again = audit()
    assert (again_cache.hits, again_cache.stored) == (["404.html"], [])
    assert again == first

    css = site / "assets" / "snippet-runner" / "snippets.css"
    css.write_text(css.read_text() + "\n/* changed */\n")
    assert AuditCache.for_site(site, axe, version).get("404.html") is None
    css.write_bytes((built_site / "assets" / "snippet-runner" / "snippets.css").read_bytes())
    assert AuditCache.for_site(site, axe, version).get("404.html") is not None
    page = site / "404.html"
    page.write_text(page.read_text() + "<!-- changed -->")
    assert AuditCache.for_site(site, axe, version).get("404.html") is None
    assert AuditCache.for_site(site, axe, "another Chromium").get("404.html") is None
    old = time.time() - 31 * 86400
    os.utime(entry, (old, old))
    AuditCache.for_site(site, axe, version).prune(days=30)
    assert not entry.exists()
    monkeypatch.setenv("AUDIT_CACHE", "0")
    assert AuditCache.for_site(site, axe, version) is None
