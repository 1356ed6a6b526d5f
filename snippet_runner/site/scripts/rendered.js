// True once Material has run (it swaps each <pre class="mermaid"> for a drawn <div>), KaTeX or
// MathJax has typeset every formula pymdownx.arithmatex marked, and the fonts are in.
() =>
  typeof document$ !== "undefined"
  && document.querySelectorAll("pre.mermaid").length === 0
  && [...document.querySelectorAll(".arithmatex")].every(el => el.querySelector(".katex, mjx-container"))
  && document.fonts.status === "loaded"
