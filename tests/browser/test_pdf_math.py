"""The PDF of a site that sets its math with either of Material's two math recipes, KaTeX or MathJax
(pymdownx.arithmatex in generic mode, the renderer served from the site's own files), or with none,
when the plugin adds the engine's KaTeX (plugins/runner/reader_assets.py), prints the formulas
typeset, in the renderer's own fonts; a site whose renderer the printing browser may not fetch (from
a CDN) stops the build at once with one line saying what it needs (issue 51). Each renderer comes
from this repository's npm packages (package-lock.json: katex, mathjax), as `make` installs them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from devtools.scratch import ScratchProject

from .pdf_text import PdfText

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "node_modules"

CONFIG = """
site_name: math
use_directory_urls: false
theme:
  name: material
  font: false
markdown_extensions:
  - pymdownx.arithmatex:
      generic: true
plugins:
  - snippet-runner:
      preload: []
  - print-site:
      add_cover_page: false
      path_to_pdf: pdf/math.pdf
"""

PAGE = r"""# Math

The derivative \( \frac{\partial y}{\partial x} = 2x \) at two, and a sum:

\[
\sum_{i=1}^{3} i^2 = 14
\]
"""

# Material's recipes: the renderer's settings, then the renderer, each run again on every page
# Material shows (document$ emits once per page).
KATEX_INIT = """
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [{ left: "\\\\(", right: "\\\\)", display: false }, { left: "\\\\[", right: "\\\\]", display: true }],
  });
});
"""
MATHJAX_INIT = """
window.MathJax = {
  tex: { inlineMath: [["\\\\(", "\\\\)"]], displayMath: [["\\\\[", "\\\\]"]], processEscapes: true, processEnvironments: true },
  options: { ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex" },
};
document$.subscribe(() => {
  MathJax.startup.output.clearCache();
  MathJax.typesetClear();
  MathJax.texReset();
  MathJax.typesetPromise();
});
"""
RECIPES = {
    "katex": (
        KATEX_INIT,
        ["javascripts/math.js", "vendor/katex/katex.min.js", "vendor/katex/contrib/auto-render.min.js"],
        ["vendor/katex/katex.min.css"],
    ),
    "mathjax": (MATHJAX_INIT, ["javascripts/math.js", "vendor/mathjax/tex-mml-chtml.js"], []),
    "engine": (None, [], []),  # none of the site's own: the engine's KaTeX
}


def vendor(project: ScratchProject, renderer: str) -> None:
    """The renderer's files from node_modules into the project's docs/vendor/ (fonts included)."""
    target = project.root / "docs" / "vendor" / renderer
    if renderer == "katex":
        shutil.copytree(NODE_MODULES / "katex" / "dist", target, ignore=shutil.ignore_patterns("*.md"))
    else:
        es5 = NODE_MODULES / "mathjax" / "es5"
        target.mkdir(parents=True)
        shutil.copy(es5 / "tex-mml-chtml.js", target)
        shutil.copytree(es5 / "output" / "chtml" / "fonts" / "woff-v2", target / "output/chtml/fonts/woff-v2")


def math_project(root: Path, scripts: list[str], styles: list[str], init: str | None) -> ScratchProject:
    extra = "".join(f"{kind}:\n" + "".join(f"  - {item}\n" for item in items) for kind, items in
                    (("extra_javascript", scripts), ("extra_css", styles)) if items)  # fmt: skip
    project = ScratchProject.minimal(root, CONFIG + extra)
    project.write("docs/math.md", PAGE)
    if init is not None:
        project.write("docs/javascripts/math.js", init)
    return project


@pytest.mark.parametrize("renderer", sorted(RECIPES))
def test_the_pdf_prints_the_math_of_a_material_recipe_or_the_engines_katex_typeset(tmp_path, chromium_path, renderer):
    init, scripts, styles = RECIPES[renderer]
    project = math_project(tmp_path / "project", scripts, styles, init)
    if scripts:
        vendor(project, renderer)
    code, log = project.build()
    assert code == 0, log
    pdf = project.root / "site" / "pdf" / "math.pdf"
    text = PdfText(pdf).all_text()
    assert "derivative" in text and "\\frac" not in text and "\\sum" not in text, text
    assert "∂" in text and "∑" in text, text  # drawn from \partial and \sum: typeset


CDN = "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"


def test_formulas_whose_renderer_is_on_a_cdn_stop_the_build_at_once_saying_what_it_needs(tmp_path, chromium_path):
    project = math_project(tmp_path / "project", ["javascripts/math.js", CDN], [], MATHJAX_INIT)
    code, log = project.build()
    assert code != 0
    (line,) = [line for line in log.splitlines() if line.startswith("PDF failed")]
    assert "2 formulas (pymdownx.arithmatex) and no KaTeX or MathJax" in line, log
    assert "extra_javascript" in line and "did not finish rendering" not in log, log
    assert CDN in line, line
