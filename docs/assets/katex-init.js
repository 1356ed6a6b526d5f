// Render the math pymdownx.arithmatex leaves in the page (generic mode) with the bundled KaTeX.
// document$ fires on every page load, including Material's instant navigation.
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
      { left: "$", right: "$", display: false }, // notebook Markdown cells use $...$
    ],
  })
})
