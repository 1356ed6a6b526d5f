// Every block that scrolls sideways (or up and down) can be reached with Tab and scrolled with the
// arrow keys (WCAG 2.1.1; axe-core's rule scrollable-region-focusable). Material does this for its
// own code blocks; a wide formula (KaTeX, rendered by katex-init.js just before this runs) and the
// notebooks' code and output blocks (mkdocs-jupyter) get no such help, so on a phone, or with a
// long formula on a desktop, their ends could only be reached with a mouse or a finger.
// Only blocks that do scroll now, at this width, become tab stops; checked again once the fonts
// are in and after a resize.
const SCROLLERS = ".md-typeset .arithmatex, .jupyter-wrapper .highlight-ipynb, .jupyter-wrapper pre"

function markScrollable(root) {
  for (const el of root.querySelectorAll(SCROLLERS)) {
    const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
    const style = getComputedStyle(el)
    const canScroll = /auto|scroll/.test(style.overflowX + style.overflowY)
    if (scrolls && canScroll && !el.querySelector("a, button, input, [tabindex]")) {
      el.setAttribute("tabindex", "0")
    } else if (el.getAttribute("tabindex") === "0" && el.dataset.scrollable === "1") {
      el.removeAttribute("tabindex")
    }
    if (el.getAttribute("tabindex") === "0") el.dataset.scrollable = "1"
  }
}

document$.subscribe(({ body }) => {
  markScrollable(body)
  document.fonts.ready.then(() => markScrollable(document.body)) // KaTeX's fonts widen formulas
  let pending = 0
  window.addEventListener("resize", () => {
    clearTimeout(pending)
    pending = setTimeout(() => markScrollable(document.body), 200)
  })
})
