"""Running axe-core over the built site, for test_accessibility.py (and by hand:
``python -m tests.browser.audit site/`` prints every violation of every page, in both palettes and
at both widths, and the counts by impact).

axe-core is Deque's accessibility engine, the one Lighthouse and the browsers' own audits build on.
It comes from the npm registry through package.json; the Makefile step that copies KaTeX and
Mermaid copies it to tests/browser/vendor/, and it is injected into each page under test, never
into the site itself. We run its whole default rule set (WCAG 2.0, 2.1 and 2.2 A and AA, plus best
practices) and the tests require no violation of impact ``critical`` or ``serious``.

Where the time goes: axe's ``color-contrast`` rule is three fifths of an audit of a page and four
fifths of one of the print page (for each text element it works out what is painted behind it,
over the whole document, however little of it is checked). Every other rule together costs less
than it. So each check runs where its answer can differ, and no more often:

* **Markup** (every rule but the colour rules: names, roles, landmarks, headings, ids, lists,
  tables, focus, target sizes, what scrolls) depends on the document and on what the layout shows,
  so it runs at both widths, on the whole page.
* **Colour** (``color-contrast`` and ``link-in-text-block``, axe's colour rules at level AA)
  depends on the palette and on what is painted where. The page's content has one set of colours
  per palette at either width (Material's responsive CSS moves the content, never recolours it), so
  it is audited once per palette: light at the desktop width, dark at the phone width. The frame
  around it (header, tabs, navigation, table of contents, footer) is laid out differently at each
  width, so it is audited at the other two combinations too, with the content taken out of the
  document first, which is what makes those two runs cheap.
* **The chrome** (header, search dialog, navigation, footer) is one template, the same on every
  page of a kind but for the page's own entry in it (see CHROME): it is audited as above on one
  page of each kind (CHROME_PAGES, the 404 page, the print page), and left out of axe's context on
  the others, where the page's content, its tables of contents and its title are audited as above.
* **The print page** holds the content of every page, audited on its own page already, plus a
  cover and a printed table of contents of its own (its stylesheet, ``print.css``, applies to print
  media only, so on screen every section has its page's colours). Its markup is audited whole, for
  what only the joined page can get wrong (a duplicate id, the order of headings, landmarks), and its
  colours on its own parts, in both palettes, with the sections taken out. It is audited at the
  desktop width only: it is the page Chromium prints on A4, and its content is that of the pages,
  which are audited at both widths.

Beside axe, one check of our own runs in the same page: every image and figure has a text
alternative, the drawn diagrams included (Mermaid draws them into shadow roots, which the test
context opens; axe's own ``svg-img-alt`` only looks at ``role="img"``).

Economy: each page is loaded and rendered (math, diagrams, fonts) once, in a tab whose system
preference is light, at the desktop width (a tab goes on to the next page, as a reader's does, with
nothing stored kept), and taken through ``steps_of(path)``: audited, narrowed
to the phone width, switched to the dark palette with the header's toggle, as a reader would,
widened, and switched back to light at the phone width. With ``layout``, layout.py's checks run at
each width of the light palette, on the reading pages. A few pages go through this side by side,
each in a context of its own, so the browser works on one while Python waits on another.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from .audit_cache import AuditCache
from .layout import PAGES, layout_problems
from .player import MEASURE, TO_BUSIEST

ROOT = Path(__file__).resolve().parents[2]
_NO_MOTION = "*, *::before, *::after { transition: none !important; animation: none !important; }"
AXE = ROOT / "tests" / "browser" / "vendor" / "axe.min.js"  # copied from npm by the Makefile

SCHEMES = {"light": "light", "dark": "dark"}  # prefers-color-scheme; Material follows it (mkdocs.yml)
MATERIAL_SCHEME = {"light": "default", "dark": "slate"}
WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AT_ONCE = 2  # pages rendered and audited side by side, each in its own context
PRINT_PAGE = "print_page.html"
# Where the players under the graph pictures are measured (``players``): the lit colours come from the
# palette, the layout from the width, and neither depends on the other.
PLAYER_PAIRS = [("light", "desktop"), ("dark", "phone")]

# Screenshots for a person to look at, taken at every step of the audit, saved outside the
# repository: {page: (name, the anchor scrolled to first, or None for the top)}.
SCREENSHOT_DIR = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/autograd-site-screenshots"))
SCREENSHOTS = {
    "index.html": ("home", None),
    "chain-rule.html": ("chain-rule", None),  # math, code, outputs
    "common-mistakes.html": ("common-mistakes", "backward-twice"),  # Wrong/Right tabs, a traceback
    "exercises/exercise_2_chain_rule.html": ("exercise-2", None),  # a notebook
    "training-loop.html": ("training-loop-graph", "pic-training-loop-one-step-graph-1"),  # a graph drawn from a run
}

# What a step asks axe to run (see the module docstring); violations only, which keeps axe fast.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
RULES = {
    "every rule": {"resultTypes": ["violations"]},
    "markup": {"resultTypes": ["violations"], "rules": {rule: {"enabled": False} for rule in COLOUR_RULES}},
    "colour": {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}},
}

# The chrome: what Material's templates (header.html with the search dialog, nav.html, footer.html)
# draw the same on every page of a kind, from the same nav and the same mkdocs.yml. It differs from
# page to page only in the page's own entry (marked active, its section expanded, its table of
# contents nested under it), the header's page title, the footer's previous/next links and the
# relative form of the links: test_accessibility.py asserts exactly that, on every page. So the
# chrome is audited whole (every palette, every width) on one page of each kind, CHROME_PAGES (the
# 404 and print pages are kinds of one page), and on every other page axe's context leaves it out
# but for what is the page's own (OWN); the page's content and its tables of contents are audited in
# full there as everywhere. (Colour rules cost by the element checked, and the navigation holds
# every page's link: most of a short page's elements are chrome.)
CHROME_PAGES = {"index.html": "Markdown", "exercises/exercise_2_chain_rule.html": "notebook"}
CHROME = [".md-header", ".md-sidebar--primary", ".md-footer-meta", ".md-dialog"]
OWN = [".md-header__title", ".md-sidebar--primary .md-nav--secondary"]  # inside CHROME, yet the page's own
# axe's context per scope: an include nested in an exclude is included (axe's own precedence rule).
SCOPES: dict[str | None, dict | None] = {
    None: None,
    "page": {"include": [["html"], *([sel] for sel in OWN)], "exclude": [[sel] for sel in CHROME]},
}

# Takes out of the document what was audited elsewhere, before a step that audits the rest: a
# page's content (its frame stays), or the print page's sections (its cover and contents stay).
_TAKE_OUT = {
    "content": "() => document.querySelectorAll('.md-content').forEach(el => el.remove())",
    "sections": """() => document.querySelectorAll('#print-site-page > section.print-page')
        .forEach(el => { if (!el.querySelector('#print-page-toc')) el.remove() })""",
}

# Starts axe on the page; the result (reduced to what a failure message needs) is collected later.
# From a timer: axe works in promise callbacks, and those started by this call itself would all run
# before Playwright's evaluate returned, so the pages of a batch would be audited one after another.
_START = """([context, options]) => {
  window.__audit = new Promise(resolve => setTimeout(resolve, 0)).then(() => axe.run(context || document, options)).then(result => result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: (n.failureSummary || "").split("\\n").slice(1, 2).join("").trim()})),
  })))
}"""

# Images and figures without a text alternative: <img> without alt, role="img" without a name,
# <figure> without a caption or name, and drawn diagrams whose <svg> has no name.
_ALTERNATIVES = """() => {
  const named = el => (el.getAttribute("aria-label") || "").trim()
    || (el.getAttribute("aria-labelledby") || "").split(/\\s+/).some(id => {
         const root = el.getRootNode(); const ref = id && (root.getElementById ? root.getElementById(id) : document.getElementById(id));
         return ref && ref.textContent.trim() })
    || (el.querySelector(":scope > title") || {textContent: ""}).textContent.trim()
  const missing = []
  for (const img of document.querySelectorAll("img"))
    if (!img.hasAttribute("alt") && img.getAttribute("role") !== "presentation") missing.push("img " + img.src)
  for (const el of document.querySelectorAll("[role=img]"))
    if (!named(el) && !(el.getAttribute("title") || "").trim()) missing.push("role=img " + el.outerHTML.slice(0, 80))
  for (const fig of document.querySelectorAll("figure"))
    if (!fig.querySelector("figcaption") && !named(fig)) missing.push("figure " + fig.outerHTML.slice(0, 80))
  const diagrams = [...document.querySelectorAll("div.mermaid")]
  diagrams.forEach((div, i) => {
    const svg = (div.shadowRoot || div).querySelector("svg")
    if (!svg) missing.push(`diagram ${i}: not drawn`)
    else if (!named(svg)) missing.push(`diagram ${i}: its <svg> has no accessible name (accTitle)`)
  })
  return {missing, diagrams: diagrams.length}
}"""


def axe_source() -> str:
    if not AXE.is_file():
        raise FileNotFoundError(f"{AXE} is missing: run `make docs/assets/vendor/.copied` (npm ci)")
    return AXE.read_text(encoding="utf-8")


def site_pages(site: Path) -> list[str]:
    """Every themed HTML page of the built site, relative to it: reading pages, notebooks, 404, print
    page. (The execution report, the build's log, is not in the site: it is audited on its own.)"""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if "assets" not in p.parts)


def new_context(browser, scheme: str, width: str = "desktop", root: str = "file:///"):
    """A context in the palette ``scheme`` that records every request its pages make (``.recorder``)
    and opens the drawn diagrams' shadow roots, so the checks also see inside them."""
    from .pages import recording_context

    phone = width == "phone"
    context = recording_context(
        browser, root, viewport=WIDTHS[width], color_scheme=SCHEMES[scheme], is_mobile=phone, has_touch=phone
    )
    # Material keeps the palette a reader chose in localStorage, for every page of the site; each
    # page under audit starts as a first visit does, in the palette of the system preference (the
    # audit's tabs go from page to page: nothing a page stored may reach the next).
    context.add_init_script("localStorage.clear(); sessionStorage.clear()")
    return context


def _collect(page, whole: bool) -> dict:
    """The result of the axe run _START began, and (on the whole page) our own check."""
    found = {
        "violations": page.evaluate("() => window.__audit"),
        "scheme": page.locator("body").get_attribute("data-md-color-scheme"),
    }
    return {**found, **page.evaluate(_ALTERNATIVES)} if whole else {**found, "missing": []}


# A step's way there starts a change and returns what waits until the page has made it: the pages
# of a batch then make theirs side by side (a width change alone is a 100 ms wait, below).


def to_width(page, width: str) -> Callable[[], None]:
    page.set_viewport_size(WIDTHS[width])
    # until scrollable.js has looked again at what scrolls at this width: it does so 100 ms after the
    # last resize event, by which time Material's own handlers (run on the event) are done too
    checked = f"document.documentElement.dataset.scrollablesChecked === '{WIDTHS[width]['width']}'"
    return lambda: page.wait_for_function(checked)


def to_palette(page, palette: str) -> Callable[[], None]:
    """What a reader does: the palette toggle in the header, as a click. The system preference is
    then made the same, so that nothing styled by ``prefers-color-scheme`` stays as it was."""
    page.locator("form[data-md-component=palette] label:not([hidden])").click()

    def arrived() -> None:
        page.wait_for_function(f"document.body.dataset.mdColorScheme === '{MATERIAL_SCHEME[palette]}'")
        page.emulate_media(color_scheme=SCHEMES[palette])

    return arrived


def _to_light_phone(page) -> Callable[[], None]:
    to_palette(page, "light")()
    return to_width(page, "phone")


@dataclass(frozen=True)
class Step:
    """One audit of a page: in ``palette`` at ``width``, reached from the step before by ``get_there``
    (which returns what waits for the page to get there), axe running ``RULES[rules]`` on the whole
    page, or on what is left once ``take_out`` is gone; within axe's context ``SCOPES[scope]``."""

    palette: str
    width: str
    get_there: Callable | None
    rules: str
    take_out: str | None = None
    scope: str | None = None


# What each page goes through, in order, after its load at the desktop width in the light palette.
# One load serves all the steps; what a step takes out stays out for the steps after it.
STEPS = [
    Step("light", "desktop", None, "every rule"),
    Step("light", "phone", lambda page: to_width(page, "phone"), "markup"),
    Step("dark", "phone", lambda page: to_palette(page, "dark"), "colour"),
    Step("dark", "desktop", lambda page: to_width(page, "desktop"), "colour", take_out="content"),
    Step("light", "phone", _to_light_phone, "colour"),
]
# Any other page of a kind: its own part of the page, in the palettes and widths STEPS audits it in
# (the last of STEPS looks at the frame alone, at a pair the content's checks never visit: all of
# that is chrome, audited on the kind's CHROME_PAGES page).
OWN_STEPS = [dataclasses.replace(step, scope="page") for step in STEPS[:4]]
PRINT_STEPS = [
    Step("light", "desktop", None, "markup"),
    Step("light", "desktop", None, "colour", take_out="sections"),
    Step("dark", "desktop", lambda page: to_palette(page, "dark"), "colour"),
]


def _thorough(steps: list[Step]) -> list[Step]:
    """For the report by hand: the same palettes and widths, each once, with every rule on the whole
    page (slower; it sees everything)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for step in steps:
        if (step.palette, step.width) not in seen:
            seen.add((step.palette, step.width))
            out.append(dataclasses.replace(step, rules="every rule", take_out=None, scope=None))
    return out


def steps_of(path: str, thorough: bool = False, chrome_pages: Collection[str] = CHROME_PAGES) -> list[Step]:
    """The steps a page is audited in: the print page is audited at the desktop width only, the
    404 page and ``chrome_pages`` whole, any other page without the chrome (see CHROME)."""
    if path == PRINT_PAGE:
        steps = PRINT_STEPS
    elif path == "404.html" or path in chrome_pages:
        steps = STEPS
    else:
        steps = OWN_STEPS
    return _thorough(steps) if thorough else steps


def widths_of(path: str) -> list[str]:
    """The widths a page is audited at."""
    return ["desktop"] if path == PRINT_PAGE else list(WIDTHS)


def _screenshot(page, path: str, palette: str, width: str) -> str:
    """Saves the page as it is now (scrolled to its anchor) under SCREENSHOT_DIR; returns the file."""
    name, anchor = SCREENSHOTS[path]
    if anchor:
        page.evaluate("id => document.getElementById(id).scrollIntoView()", anchor)
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    file = SCREENSHOT_DIR / f"{name}-{palette}-{width}.png"
    page.screenshot(path=str(file))
    page.evaluate("window.scrollTo(0, 0)")  # the next step is audited as the page loaded
    return str(file)


def _merge(results: dict, key: tuple[str, str, str], found: dict) -> None:
    """Two steps of one palette and width (the markup, then the frame's colours) make one result."""
    if key not in results:
        results[key] = found
        return
    into = results[key]
    into["violations"] += found["violations"]
    into["missing"] += found["missing"]
    for name in ("diagrams", "layout", "screenshot", "players"):
        if name in found:
            into[name] = found[name]
    if found["scheme"] != into["scheme"]:
        into["scheme"] = f"{into['scheme']} then {found['scheme']}"


def audit_pages(
    browser,
    root: str,
    paths: list[str],
    axe: str,
    wait: bool = True,
    layout: bool = False,
    screenshots: bool = False,
    players: bool = False,
    thorough: bool = False,
    cache: AuditCache | None = None,
    chrome_pages: Collection[str] = CHROME_PAGES,
) -> dict[tuple[str, str, str], dict]:
    """{(palette, width, path): {"violations": [...], "missing": [...], "scheme": ..., "diagrams": n,
    "foreign": [every request the page made to another host, over the whole audit]}}.

    Each page is loaded once, in a browser context of its own whose system preference is light, at
    the desktop width, rendered, and taken through ``steps_of(path)``. "diagrams" (and our own check
    of text alternatives) comes from the steps that audit the whole page; with ``layout``,
    layout.py's checks run in the light palette at both widths; with ``screenshots``, the pages of
    SCREENSHOTS are saved at each palette and width, whole (the file in "screenshot"); with
    ``players``, every graph picture's player is first taken to its busiest step (player.py), so
    the audit sees it lit, and measured in PLAYER_PAIRS ("players": what player_problems reads). ``thorough``:
    every rule at every step, nothing taken out (``python -m tests.browser.audit``). With ``cache``
    (audit_cache.py), a page whose inputs are all unchanged since an earlier audit on this machine
    takes that audit's results (and screenshots) instead of being audited again. ``chrome_pages``:
    the pages audited with their chrome (see CHROME), besides the 404 and print pages.
    """
    from .pages import wait_until_rendered

    assert cache is None or chrome_pages is CHROME_PAGES, "the cache knows CHROME_PAGES (in audit.py's code) only"
    results: dict[tuple[str, str, str], dict] = {}
    paths = [path for path in paths if not (cache and _from_cache(cache, path, results))]
    # A context per page of a batch: two pages of one context are two tabs of one window, and the
    # one in the background got its animation frames late (a batch of two took half as long again).
    # Each context's one tab then goes on to its next page, as a reader's tab does (a new context per
    # page cost more: dev/measurements.md); the palette and width are put back first, and the init
    # script clears the stored palette on every load, so each page starts as a first visit does.
    contexts = [new_context(browser, "light", root=root) for _ in paths[:AT_ONCE]]
    tabs = [context.new_page() for context in contexts]
    try:
        for i in range(0, len(paths), AT_ONCE):
            batch = list(zip(paths[i : i + AT_ONCE], tabs))
            for (path, page), context in zip(batch, contexts):
                context.recorder.urls.clear()  # from here on, this page's requests
                page.emulate_media(color_scheme=SCHEMES["light"])
                page.set_viewport_size(WIDTHS["desktop"])
                page.goto(root + path, wait_until="commit")
            for _, page in batch:
                page.wait_for_load_state("load")
                if wait:
                    wait_until_rendered(page)
                # Material animates its drawer and palette; axe must read colours at rest, not a
                # half-faded title (seen once: #ededed on #fafafa in the phone drawer mid-transition).
                page.add_style_tag(content=_NO_MOTION)
                page.add_script_tag(content=axe)
            plans = [
                (path, page, steps_of(path, thorough, chrome_pages), {"whole": True, "shots": {}})
                for path, page in batch
            ]
            for path, page, _, state in plans:
                if players and path != PRINT_PAGE:  # the print page's players are its pages'
                    state["set_up"] = page.evaluate(TO_BUSIEST)
            for n in range(max(len(plan) for _, _, plan, _ in plans)):
                now = [(path, page, plan[n], state) for path, page, plan, state in plans if n < len(plan)]
                arrivals = [step.get_there(page) for _, page, step, _ in now if step.get_there is not None]
                for arrived in arrivals:
                    arrived()
                for path, page, step, state in now:
                    key = (step.palette, step.width, path)
                    if screenshots and path in SCREENSHOTS and state["whole"] and key not in state["shots"]:
                        state["shots"][key] = _screenshot(page, path, step.palette, step.width)
                    if step.take_out:
                        page.evaluate(_TAKE_OUT[step.take_out])
                        state["whole"] = False
                    page.evaluate(_START, [SCOPES[step.scope], RULES[step.rules]])
                for path, page, step, state in now:
                    key = (step.palette, step.width, path)
                    found = _collect(page, state["whole"])
                    if layout and step.palette == "light" and path in PAGES and state["whole"]:
                        found["layout"] = layout_problems(page, step.width)  # on the page as it is
                    if state.get("set_up") and (step.palette, step.width) in PLAYER_PAIRS and state["whole"]:
                        found["players"] = {"set_up": state["set_up"], "measured": page.evaluate(MEASURE)}
                    if key in state["shots"]:
                        found["screenshot"] = state["shots"][key]
                    _merge(results, key, found)
            for (path, _), context in zip(batch, contexts):
                for key in [key for key in results if key[2] == path]:
                    results[key]["foreign"] = context.recorder.foreign()  # requests that left the site
                if cache:
                    mine = {key: r for key, r in results.items() if key[2] == path}
                    shots = {key: Path(r["screenshot"]).read_bytes() for key, r in mine.items() if "screenshot" in r}
                    cache.put(path, context.recorder.urls, mine, shots)
    finally:
        for context in contexts:
            context.close()
    return results


def _from_cache(cache: AuditCache, path: str, results: dict) -> bool:
    """Adds ``path``'s results from ``cache`` to ``results`` (its screenshots written out again, as
    the audit would have saved them); whether there were any."""
    found = cache.get(path)
    if found is None:
        return False
    cached, shots = found
    for key, result in cached.items():
        if key in shots:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            file = SCREENSHOT_DIR / Path(result["screenshot"]).name
            file.write_bytes(shots[key])
            result["screenshot"] = str(file)
        results[key] = result
    return True


def describe(path: str, violations: list[dict]) -> list[str]:
    return [
        f"{path}: {v['impact']} {v['id']} ({v['help']}) x{len(v['nodes'])}: "
        + "; ".join(f"{n['target']} {n['summary']}" for n in v["nodes"][:3])
        for v in violations
    ]


def main(site: Path) -> None:
    """Print the violations of every page in every palette and width, and the counts by impact."""
    from collections import Counter

    from snippet_runner.site import chromium

    axe = axe_source()
    total: Counter = Counter()
    with chromium.launch() as browser:
        wait = "--no-wait" not in sys.argv
        results = audit_pages(browser, site.resolve().as_uri() + "/", site_pages(site), axe, wait=wait, thorough=True)
        for (scheme, width, path), result in results.items():
            for v in result["violations"]:
                total[v["impact"]] += len(v["nodes"])
            for line in describe(f"{scheme}/{width} {path}", result["violations"]) + result["missing"]:
                print(line)
    print(dict(total))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
