// How many formulas pymdownx.arithmatex marked while neither KaTeX nor MathJax was loaded (0 when
// there are none, or a renderer is there): asked once the page's scripts have run.
() => {
  const formulas = document.querySelectorAll(".arithmatex").length;
  const renderer = typeof katex !== "undefined" || (typeof MathJax !== "undefined" && MathJax.version);
  return renderer ? 0 : formulas;
}
