"""What a reader's browser needs from the engine, added by the plugin to any site that lists it: the
outputs' and pictures' styles, the backward-pass player, each page's links to its notebook and the
zip, and KaTeX (from npm, in the wheel: setup.py) for arithmatex's formulas where ``extra_javascript``
names no renderer. Through MkDocs' documented config and events only (``extra_css``,
``extra_javascript``, ``File.generated``, ``on_post_page``): a site needs no template or copied file."""

from __future__ import annotations

import posixpath
from html import escape
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from snippet_runner.files import from_npm

FOLDER = Path(__file__).with_name("assets")  # package data: in the wheel beside this module
SITE_FOLDER = "assets/snippet-runner"
CSS = ("snippets.css", "backward-steps.css")  # first, so the site's own stylesheets can override them
JS = ("backward-steps.js",)
MATH = "pymdownx.arithmatex"
MATH_CSS, MATH_JS = ("katex/katex.min.css",), ("katex/katex.min.js", "katex/contrib/auto-render.min.js", "math.js")
KATEX = from_npm(FOLDER / "katex", "katex/dist")  # in a wheel beside the assets
# Material's content area; the links go at its top, where a theme's page actions stand
ARTICLE = '<article class="md-content__inner md-typeset">'
NOTEBOOK = 'class="jupyter-wrapper"'  # mkdocs-jupyter's


def _math(config, katex: bool) -> bool:
    """Whether the site needs the engine's KaTeX: arithmatex's formulas, and no renderer of its own."""
    scripts = " ".join(map(str, config.extra_javascript)).lower()
    if not katex or MATH not in config.markdown_extensions or "katex" in scripts or "mathjax" in scripts:
        return False
    if not config.mdx_configs.get(MATH, {}).get("generic"):  # without, it writes MathJax 2's <script>s
        raise PluginError(f"{MATH} needs `generic: true` for the engine's KaTeX, or a renderer in extra_javascript")
    if not (KATEX / "katex.min.js").is_file():
        raise PluginError(f"{KATEX} is missing: run `npm ci`, or install the engine from its wheel")
    return True


def add_to_config(config, katex: bool = True) -> None:
    math = _math(config, katex)
    css = [f"{SITE_FOLDER}/{name}" for name in CSS + (MATH_CSS if math else ())]
    config.extra_css[:0] = [path for path in css if path not in config.extra_css]
    js = [f"{SITE_FOLDER}/{name}" for name in JS + (MATH_JS if math else ())]
    config.extra_javascript += [path for path in js if path not in map(str, config.extra_javascript)]


def add_files(files, config) -> None:
    names = [*CSS, *JS]
    if f"{SITE_FOLDER}/{MATH_JS[-1]}" in map(str, config.extra_javascript):  # add_to_config's KaTeX
        names += [*MATH_CSS, *MATH_JS, *(f"katex/fonts/{font.name}" for font in KATEX.glob("fonts/*.woff2"))]
    for name in names:
        uri, katex = f"{SITE_FOLDER}/{name}", name.removeprefix("katex/")
        if files.get_file_from_path(uri) is None:  # a site's own copy wins
            source = KATEX / katex if katex != name else FOLDER / name
            files.append(File.generated(config, uri, abs_src_path=str(source)))


def _relative(target: str, page) -> str:
    here = posixpath.dirname(page.url) if not page.url.endswith("/") else page.url.rstrip("/")
    return escape(posixpath.relpath(target, here or "."))


def add_notebook_styles(output: str, page, stylesheet: str) -> str:
    """Where a notebook shows (its page, the print page), the notebooks' stylesheet, after the others."""
    if NOTEBOOK not in output or "</head>" not in output:
        return output
    return output.replace("</head>", f'<link rel="stylesheet" href="{_relative(stylesheet, page)}">\n</head>', 1)


def add_links(output: str, page) -> str:
    """``output`` with the page's download links at the top of its content, if it shows examples."""
    notebook, archive = page.meta.get("examples_notebook"), page.meta.get("examples_archive")
    if not notebook or ARTICLE not in output:
        return output
    links = "".join(
        f'<a class="snippet-download examples-download" href="{_relative(target, page)}"'
        f' download title="{escape(title)}">{escape(text)}</a>'
        for target, text, title in (
            (notebook, "Examples as a notebook", "This page's examples as a Jupyter notebook, with their outputs"),
            (archive, "All examples (zip)", "Every example of the site with its output, as a zip archive"),
        )
    )
    return output.replace(ARTICLE, ARTICLE + links, 1)
