// What rendered.js still waits for: the error message's detail when it never comes true.
() => ({
  material: typeof document$ !== "undefined",
  diagrams_left: document.querySelectorAll("pre.mermaid").length,
  formulas_left: [...document.querySelectorAll(".arithmatex")].filter(el => !el.querySelector(".katex, mjx-container")).length,
  fonts: document.fonts.status,
})
