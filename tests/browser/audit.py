"""Running axe-core over the built site, for test_accessibility.py (and by hand:
``python -m tests.browser.audit site/`` prints every violation of every page, in both palettes and
at both widths, and the counts by impact).

axe-core is Deque's accessibility engine, the one Lighthouse and the browsers' own audits build on.
It comes from the npm registry through package.json; the Makefile step that copies KaTeX and
Mermaid copies it to tests/browser/vendor/, and it is injected into each page under test, never
into the site itself. We run its whole default rule set (WCAG 2.0, 2.1 and 2.2 A and AA, plus best
practices) and the tests require no violation of impact ``critical`` or ``serious``.

The two palettes differ only in colours: Material switches a CSS attribute and nothing else of the
page. So the light palette is audited with every rule, and the dark one with the rules about colour
(axe's colour rules at level AA: ``color-contrast`` and ``link-in-text-block``); the rest would audit the
same markup twice. The print page is audited at the desktop width only: it is the page Chromium
prints on A4, and its content is that of the pages, which are audited at both widths.

Beside axe, one check of our own runs in the same page: every image and figure has a text
alternative, the drawn diagrams included (Mermaid draws them into shadow roots, which the test
context opens; axe's own ``svg-img-alt`` only looks at ``role="img"``).

Economy: each page is loaded and rendered (math, diagrams, fonts) once, in a context whose system
preference is light, and taken through four steps (``STEPS``): audited at the desktop width,
narrowed to the phone width and audited, switched to the dark palette with the header's toggle, as a
reader would, and audited, widened and audited again. With ``layout``, layout.py's checks run at
each width of the light palette, on the reading pages. The print page is the exception: switching
its palette in place left it half restyled, so it is loaded once per palette, in a context whose
system preference is that palette (Material picks its palette from it when a page loads). A few
pages go through this side by side, each in a context of its own, so the browser works on one
while Python waits on another.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .layout import PAGES, layout_problems

ROOT = Path(__file__).resolve().parents[2]
_NO_MOTION = "*, *::before, *::after { transition: none !important; animation: none !important; }"
AXE = ROOT / "tests" / "browser" / "vendor" / "axe.min.js"  # copied from npm by the Makefile

SCHEMES = {"light": "light", "dark": "dark"}  # prefers-color-scheme; Material follows it (mkdocs.yml)
MATERIAL_SCHEME = {"light": "default", "dark": "slate"}
WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AT_ONCE = 2  # pages rendered and audited side by side, each in its own context
PRINT_PAGE = "print_page.html"

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

# axe.run options per palette (see above); violations only, which is also what keeps axe fast.
RULES = {
    "light": {"resultTypes": ["violations"]},
    "dark": {
        "resultTypes": ["violations"],
        "runOnly": {"type": "rule", "values": ["color-contrast", "link-in-text-block"]},
    },
}

# Starts axe on the page; the result (reduced to what a failure message needs) is collected later.
_START = """options => {
  window.__audit = axe.run(document, options).then(result => result.violations.map(v => ({
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
    # page under audit starts as a first visit does, in the palette of the system preference.
    context.add_init_script("localStorage.clear()")
    return context


def _collect(page) -> dict:
    """The result of the axe run _START began, and our own check, for the page as it is now."""
    return {
        "violations": page.evaluate("() => window.__audit"),
        "scheme": page.locator("body").get_attribute("data-md-color-scheme"),
        **page.evaluate(_ALTERNATIVES),
    }


def _wait_for_width(page, width: str) -> None:
    page.set_viewport_size(WIDTHS[width])
    # until scrollable.js has looked again at what scrolls at this width: it does so 100 ms after the
    # last resize event, by which time Material's own handlers (run on the event) are done too
    page.wait_for_function(f"document.documentElement.dataset.scrollablesChecked === '{WIDTHS[width]['width']}'")


def _switch_to_dark(page) -> None:
    """What a reader does: the palette toggle in the header, as a click. The system preference is
    then made dark too, so that nothing styled by ``prefers-color-scheme`` stays light."""
    page.locator("form[data-md-component=palette] label:not([hidden])").click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    page.emulate_media(color_scheme="dark")


# What each page goes through, in order, after its load at the desktop width in the light palette:
# (palette, width, how to get there from the step before). One load serves all four steps.
STEPS = [
    ("light", "desktop", None),
    ("light", "phone", lambda page: _wait_for_width(page, "phone")),
    ("dark", "phone", _switch_to_dark),
    ("dark", "desktop", lambda page: _wait_for_width(page, "desktop")),
]


def steps_of(path: str, scheme: str | None) -> list[tuple[str, str, object]]:
    """The steps a page is audited in. ``scheme`` None: both palettes in one load (every page but
    the print page); the print page is audited at the desktop width only, one palette per load
    (switching it in place left it half restyled), given as ``scheme``."""
    if path == PRINT_PAGE:
        return [(scheme or "light", "desktop", None)]
    return [step for step in STEPS if scheme is None or step[0] == scheme]


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


def audit_pages(
    browser,
    root: str,
    paths: list[str],
    axe: str,
    scheme: str | None = None,
    wait: bool = True,
    layout: bool = False,
    screenshots: bool = False,
) -> dict[tuple[str, str, str], dict]:
    """{(palette, width, path): {"violations": [...], "missing": [...], "scheme": ..., "diagrams": n,
    "foreign": [every request the page made to another host, over the whole audit]}}.

    Each page is loaded once, in a browser context of its own whose system preference is ``scheme``
    (light when None), at the desktop width, rendered, and taken
    through ``steps_of(path, scheme)``: audited, narrowed to the phone width (Material's layout
    follows the width through CSS media queries, and the site's scripts re-check what scrolls on a
    resize) and audited again, switched to the dark palette and audited, widened and audited. axe
    runs with ``RULES[palette]``; with ``layout``, layout.py's checks run in the light palette;
    with ``screenshots``, the pages of SCREENSHOTS are saved at every step (the file in "screenshot").
    """
    from .pages import wait_until_rendered

    results = {}
    for i in range(0, len(paths), AT_ONCE):
        # A context per page: two pages of one context are two tabs of one window, and the one in
        # the background got its animation frames late (a batch of two took half as long again).
        contexts = [new_context(browser, scheme or "light", root=root) for _ in paths[i : i + AT_ONCE]]
        batch = [(path, context.new_page()) for path, context in zip(paths[i : i + AT_ONCE], contexts)]
        try:
            for path, page in batch:
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
            plans = [(path, page, steps_of(path, scheme)) for path, page in batch]
            for n in range(max(len(plan) for _, _, plan in plans)):
                now = [(path, page, plan[n]) for path, page, plan in plans if n < len(plan)]
                for _, page, (palette, _, step) in now:
                    if step is not None:
                        step(page)
                    page.evaluate(_START, RULES[palette])
                for path, page, (palette, width, _) in now:
                    results[palette, width, path] = _collect(page)
                    if layout and palette == "light" and path in PAGES:  # layout.py's checks, on the page as it is
                        results[palette, width, path]["layout"] = layout_problems(page, width)
                    if screenshots and path in SCREENSHOTS:
                        results[palette, width, path]["screenshot"] = _screenshot(page, path, palette, width)
            for (path, _), context in zip(batch, contexts, strict=True):
                for key in [key for key in results if key[2] == path]:
                    results[key]["foreign"] = context.recorder.foreign()  # requests that left the site
        finally:
            for context in contexts:
                context.close()
    return results


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
    every_rule = {"resultTypes": ["violations"]}  # every rule in both palettes, to see everything
    RULES.update(light=every_rule, dark=every_rule)
    pages = site_pages(site)
    with chromium.launch() as browser:
        runs = [([p for p in pages if p != PRINT_PAGE], None)]
        runs += [([PRINT_PAGE], scheme) for scheme in SCHEMES if PRINT_PAGE in pages]
        for paths, only in runs:
            wait = "--no-wait" not in sys.argv
            results = audit_pages(browser, site.resolve().as_uri() + "/", paths, axe, only, wait=wait)
            for (scheme, width, path), result in results.items():
                for v in result["violations"]:
                    total[v["impact"]] += len(v["nodes"])
                for line in describe(f"{scheme}/{width} {path}", result["violations"]) + result["missing"]:
                    print(line)
    print(dict(total))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
