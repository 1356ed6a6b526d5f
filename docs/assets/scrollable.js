// Every block that scrolls sideways (or up and down) can be reached with Tab and scrolled with the
// arrow keys (WCAG 2.1.1; axe-core's rule scrollable-region-focusable). Material gives its own code
// blocks a tab stop only on devices that can hover (matchMedia("(hover)")), so not on a phone or
// tablet with a keyboard; and a wide table, a wide formula (KaTeX, rendered by katex-init.js just
// before this runs) or a notebook's code and output blocks (mkdocs-jupyter) get none at all, so
// their ends could only be reached with a mouse or a finger.
// Only blocks that do scroll now, at this width, become tab stops; checked again once the fonts
// are in and after a resize.
const SCROLLERS = [
  ".md-typeset pre > code", // code blocks and outputs
  ".md-typeset__scrollwrap", // wide tables on a phone
  ".md-typeset .arithmatex", // display formulas
  ".jupyter-wrapper .highlight-ipynb", // notebook code cells
  ".jupyter-wrapper pre", // notebook outputs
].join(", ")

function scrolls(el) {
  const style = getComputedStyle(el)
  return /auto|scroll/.test(style.overflowX + style.overflowY)
    && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
}

// Material re-decides its code blocks' tab stops when their size changes, and without hover it
// removes them; a block we marked gets its tab stop back as long as it still scrolls.
const keeper = new MutationObserver(records => {
  for (const { target } of records)
    if (target.dataset.scrollable === "1" && !target.hasAttribute("tabindex") && scrolls(target))
      target.setAttribute("tabindex", "0")
})

function markScrollable(root) {
  for (const el of root.querySelectorAll(SCROLLERS)) {
    if (scrolls(el)) {
      el.setAttribute("tabindex", "0")
      if (el.dataset.scrollable !== "1") keeper.observe(el, { attributes: true, attributeFilter: ["tabindex"] })
      el.dataset.scrollable = "1"
    } else if (el.dataset.scrollable === "1") {
      el.removeAttribute("tabindex")
      el.dataset.scrollable = "0"
    }
  }
  document.documentElement.dataset.scrollablesChecked = String(innerWidth) // for the browser tests
}

document$.subscribe(({ body }) => {
  markScrollable(body)
  document.fonts.ready.then(() => markScrollable(document.body)) // KaTeX's fonts widen formulas
  let pending = 0
  window.addEventListener("resize", () => {
    clearTimeout(pending)
    pending = setTimeout(() => markScrollable(document.body), 100)
  })
})
