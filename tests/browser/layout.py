"""Layout checks, run on every reading page at a desktop width (1280 px) and a phone width (390 px)
inside the accessibility audit (audit.py), on the page it has already loaded and rendered at each
width: nothing is wider than its column without a scrollbar of its own, no display equation is
clipped or needs scrolling. At desktop width also: outputs keep their columns (no soft-wrapped
lines), the copy button covers no output, and no code listing needs sideways scrolling (on a phone,
listings and outputs scroll in their box).

They used to load every page twice more of their own (62 page loads, about 100 s of the suite's
work); the audit loads each page once per palette anyway, so the light palette's pass runs them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def nav_files(items):
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        yield from nav_files(value) if isinstance(value, list) else [value]


# The reading pages (the nav's), whose layout is checked: not the print page (paper) or the 404 page.
PAGES = [
    page.rsplit(".", 1)[0] + ".html"
    for page in nav_files(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"])
]

# Elements whose content is wider than their box, and nothing lets the reader scroll to it.
OVERFLOWING = """() => {
  const out = [];
  const column = document.querySelector('.md-content').getBoundingClientRect();
  for (const el of document.querySelectorAll('article.md-content__inner *')) {
    // Tables and notebook outputs scroll in their own wrapper; a notebook editor's hidden "Copied!"
    // tooltip overflows it by a few pixels without covering anything.
    if (el.closest('.md-typeset__scrollwrap, .jp-OutputArea-output, svg, .mermaid, .katex, .jp-InputArea-editor')) continue;
    const style = getComputedStyle(el);
    if (style.display === 'inline' || style.display === 'none' || el.offsetParent === null) continue;
    if (['auto', 'scroll'].includes(style.overflowX)) continue;
    // 4 px of slack: an inline code's own padding may stick out past the end of its line.
    if (el.scrollWidth <= el.clientWidth + 4 || el.clientWidth === 0) continue;
    // Content that overflows a box with visible overflow is still seen, unless it leaves the
    // content column (on a phone Material bleeds code and tab labels into the column's margins
    // on purpose). Overflow into a hidden or clipped box is cut off: always a problem.
    const clipped = ['hidden', 'clip'].includes(style.overflowX);
    const right = el.getBoundingClientRect().left + el.scrollWidth;
    if (clipped || right > column.right + 1) {
      out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}: ${el.scrollWidth} > ${el.clientWidth}: ${el.textContent.trim().slice(0, 50)}`);
    }
  }
  return out;
}"""

# Display equations that are wider than their column (clipped, or hidden behind a scrollbar).
WIDE_EQUATIONS = """() => [...document.querySelectorAll('article .arithmatex, article .katex-display')]
  .filter(el => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
  .map(el => `${el.scrollWidth} > ${el.clientWidth}: ${el.textContent.trim().slice(0, 50)}`)"""

# Code listings (not outputs) that need sideways scrolling at desktop width: a long comment should
# be wrapped in the source instead (tests/chapter/test_conventions.py checks the line lengths too).
WIDE_LISTINGS = """() => [...document.querySelectorAll('article pre > code, article .jp-InputArea-editor pre')]
  .filter(el => !el.closest('.snippet-output') && el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
  .map(el => `listing needs scrolling: ${el.scrollWidth} > ${el.clientWidth}: ${el.textContent.trim().slice(0, 50)}`)"""

# Output blocks whose lines wrap, and copy buttons that sit on top of output text.
OUTPUT_PROBLEMS = """(desktop) => {
  const out = [];
  for (const block of document.querySelectorAll('.snippet-output')) {
    const code = block.querySelector('code');
    if (!code || block.offsetParent === null) continue;
    if (desktop && getComputedStyle(code).whiteSpace !== 'pre') out.push(`soft-wrapped: ${code.textContent.slice(0, 40)}`);
    const button = block.querySelector('.md-code__nav, .md-clipboard');
    if (!button || button.offsetParent === null) continue;
    const b = button.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(code);
    for (const r of range.getClientRects()) {
      if (r.width && r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom) {
        out.push(`copy button covers: ${code.textContent.slice(0, 40)}`);
        break;
      }
    }
  }
  return out;
}"""


# KaTeX's MathML copy (for screen readers) is clipped to 1 px but still counts in scrollWidth.
_NO_MATHML = ".katex-mathml { display: none !important }"


def layout_problems(page, width: str) -> list[str]:
    """What is wrong with the page's layout at this width (``desktop`` or ``phone``), as it is now.
    The MathML copies are hidden while the checks run and shown again after, for axe."""
    hidden = page.add_style_tag(content=_NO_MATHML)
    try:
        problems = [f"equation too wide: {e}" for e in page.evaluate(WIDE_EQUATIONS)]
        problems += [f"overflows without a scrollbar: {e}" for e in page.evaluate(OVERFLOWING)]
        desktop = width == "desktop"
        problems += page.evaluate(OUTPUT_PROBLEMS, desktop)
        if desktop:
            problems += page.evaluate(WIDE_LISTINGS)
        sideways = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if sideways > 0:
            problems.append(f"the page scrolls sideways by {sideways}px")
    finally:
        hidden.evaluate("el => el.remove()")
    return problems
