// Typesets the formulas of pymdownx.arithmatex (generic: true) with the KaTeX the snippet-runner
// plugin adds to a site that has formulas and no renderer of its own (reader_assets.py). Arithmatex
// writes each formula as <span class="arithmatex">\(…\)</span> or <div class="arithmatex">\[…\]</div>:
// only those elements are searched, so a "$" or "\(" in prose or code is never taken for math. A
// formula KaTeX cannot read keeps its source (the error goes to the console), and the PDF's print
// stops on it as not rendered (site/scripts/still-missing.js counts it).
// Material's document$ emits on every page it shows, instant navigation included; another theme
// has its page typeset once it is read.
(() => {
  const DELIMITERS = [
    { left: "\\(", right: "\\)", display: false },
    { left: "\\[", right: "\\]", display: true },
  ]

  function typeset(root) {
    for (const formula of root.querySelectorAll(".arithmatex")) {
      renderMathInElement(formula, { delimiters: DELIMITERS })
    }
  }

  if (typeof document$ !== "undefined") document$.subscribe(({ body }) => typeset(body))
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => typeset(document.body))
  else typeset(document.body)
})()
