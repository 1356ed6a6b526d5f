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

Economy: one browser context per palette, set through prefers-color-scheme as a reader's system
would (Material picks its palette from it when the page loads, and does not follow it afterwards;
switching the palette in place instead left the print page half restyled, so each palette gets its
own load). In it, each page is loaded and rendered (math, diagrams, fonts) once, audited at the
desktop width, narrowed to the phone width and audited again (``STEPS``); with ``layout``, layout.py's
checks run at each width too, on the reading pages. A few pages go through
this side by side, so the browser works on one while Python waits on another.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .layout import PAGES, layout_problems

ROOT = Path(__file__).resolve().parents[2]
_NO_MOTION = "*, *::before, *::after { transition: none !important; animation: none !important; }"
AXE = ROOT / "tests" / "browser" / "vendor" / "axe.min.js"  # copied from npm by the Makefile

SCHEMES = {"light": "light", "dark": "dark"}  # prefers-color-scheme; Material follows it (mkdocs.yml)
MATERIAL_SCHEME = {"light": "default", "dark": "slate"}
WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AT_ONCE = 2  # pages rendered and audited side by side in one context
PRINT_PAGE = "print_page.html"

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


REPORT = "execution-report.html"  # the build's log for authors: a plain page, audited on its own


def site_pages(site: Path) -> list[str]:
    """Every themed HTML page of the built site, relative to it: reading pages, notebooks, 404, print
    page (everything but the execution report, which has no theme, scripts or navigation)."""
    return sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*.html") if "assets" not in p.parts and p.name != REPORT
    )


def new_context(browser, scheme: str, width: str = "desktop"):
    from .pages import OPEN_SHADOW_ROOTS

    phone = width == "phone"
    context = browser.new_context(
        viewport=WIDTHS[width], color_scheme=SCHEMES[scheme], is_mobile=phone, has_touch=phone
    )
    context.add_init_script(OPEN_SHADOW_ROOTS)  # so the checks also see inside the drawn diagrams
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
    # until scrollable.js has looked again at what scrolls at this width
    page.wait_for_function(f"document.documentElement.dataset.scrollablesChecked === '{WIDTHS[width]['width']}'")
    page.wait_for_timeout(100)  # and Material's own resize handlers have run


# The widths each page goes through, and how to get there from the one before.
STEPS = [("desktop", None), ("phone", lambda page: _wait_for_width(page, "phone"))]


def widths_of(path: str) -> list[str]:
    """The widths a page is audited at."""
    return ["desktop"] if path == PRINT_PAGE else list(WIDTHS)


def audit_pages(
    context, root: str, paths: list[str], axe: str, rules: dict, wait: bool = True, layout: bool = False
) -> dict[tuple[str, str], dict]:
    """{(width, path): {"violations": [...], "missing": [...], "scheme": ..., "diagrams": n}} in the
    context's palette, axe run with the options ``rules``.

    Each page is loaded once, at the desktop width, rendered and audited; then narrowed to the
    phone width (Material's layout follows the width through CSS media queries, and the site's
    scripts re-check what scrolls on a resize) and audited again.
    """
    from .pages import wait_until_rendered

    results = {}
    for i in range(0, len(paths), AT_ONCE):
        batch = [(path, context.new_page()) for path in paths[i : i + AT_ONCE]]
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
            for width, step in STEPS:
                now = [(path, page) for path, page in batch if width in widths_of(path)]
                for _, page in now:
                    if step is not None:
                        step(page)
                    page.evaluate(_START, rules)
                for path, page in now:
                    results[width, path] = _collect(page)
                    if layout and path in PAGES:  # layout.py's checks, on the page as it is
                        results[width, path]["layout"] = layout_problems(page, width)
        finally:
            for _, page in batch:
                page.close()
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

    from snippet_runner import chromium

    axe = axe_source()
    total: Counter = Counter()
    with chromium.launch() as browser:
        for scheme in SCHEMES:
            context = new_context(browser, scheme)
            results = audit_pages(
                context,
                site.resolve().as_uri() + "/",
                site_pages(site),
                axe,
                {"resultTypes": ["violations"]},  # every rule in both palettes, to see everything
                wait="--no-wait" not in sys.argv,
            )
            context.close()
            for (width, path), result in results.items():
                for v in result["violations"]:
                    total[v["impact"]] += len(v["nodes"])
                for line in describe(f"{scheme}/{width} {path}", result["violations"]) + result["missing"]:
                    print(line)
    print(dict(total))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "site"))
