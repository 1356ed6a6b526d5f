"""KaTeX comes with the engine (issue 51): a site whose pymdownx.arithmatex formulas have no renderer
gets the package's KaTeX from the plugin (plugins/runner/reader_assets.py), fonts included; a site
that loads KaTeX or MathJax itself gets nothing more. Read from the configuration MkDocs validates,
with no build (tests/builds/test_second_chapter.py builds and prints such a site from the wheel)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files

from snippet_runner.plugins.runner import reader_assets

ARITHMATEX = "markdown_extensions:\n  - pymdownx.arithmatex:\n      generic: true\n"
ENGINE = "assets/snippet-runner"


class _ReaderAssets(BasePlugin):
    """The snippet-runner plugin's steps for the reader's assets, without its engine."""

    katex = True  # the plugin's `math: katex`, its default

    def on_config(self, config):
        reader_assets.add_to_config(config, self.katex)
        return config

    def on_files(self, files, *, config):
        reader_assets.add_files(files, config)
        return files


def _site(tmp_path, yml: str, katex: bool = True):
    """The validated config of a site with ``yml``, after the reader's assets' ``on_config`` and
    ``on_files``, run as MkDocs runs a plugin's events; and the files added, ``{uri: source}``."""
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(f"site_name: s\nplugins: []\n{yml}", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    config.plugins["reader-assets"] = assets = _ReaderAssets()
    assets.katex = katex
    config = config.plugins.on_config(config)
    files = config.plugins.on_files(Files([]), config=config)
    return config, {file.src_uri: file.abs_src_path for file in files}


def test_formulas_with_no_renderer_get_the_engines_katex_fonts_included(tmp_path):
    config, files = _site(tmp_path, ARITHMATEX)
    scripts = [str(script) for script in config.extra_javascript]
    added = ("katex/katex.min.js", "katex/contrib/auto-render.min.js", "math.js")  # KaTeX, then what starts it
    assert scripts[-3:] == [f"{ENGINE}/{name}" for name in added]
    assert f"{ENGINE}/katex/katex.min.css" in config.extra_css
    assert {*scripts, *config.extra_css} <= set(files)
    stylesheet = files[f"{ENGINE}/katex/katex.min.css"]
    fonts = re.findall(r"url\((fonts/[^)]+\.woff2)\)", Path(stylesheet).read_text(encoding="utf-8"))
    assert len(fonts) > 10 and {f"{ENGINE}/katex/{font}" for font in fonts} <= set(files)
    assert all(Path(source).stat().st_size for source in files.values())  # each file there, not empty


@pytest.mark.parametrize(
    "scripts",
    [
        ["assets/vendor/katex/katex.min.js", "assets/katex-init.js"],  # Material's KaTeX recipe, as this chapter
        ["javascripts/mathjax.js", "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"],  # its MathJax one
    ],
    ids=["katex", "mathjax"],
)
def test_a_site_with_a_renderer_of_its_own_gets_no_other(tmp_path, scripts):
    config, files = _site(tmp_path, ARITHMATEX + "extra_javascript:\n" + "".join(f"  - {s}\n" for s in scripts))
    assert [str(script) for script in config.extra_javascript] == [*scripts, f"{ENGINE}/backward-steps.js"]
    assert not any("katex" in name or "math" in name for name in (*config.extra_css, *files))


def test_a_site_without_formulas_gets_no_katex(tmp_path):
    config, files = _site(tmp_path, "markdown_extensions:\n  - admonition\n")
    assert not any("katex" in name or "math" in name for name in (*config.extra_css, *files))


def test_arithmatex_for_mathjax_2_stops_the_build_naming_the_setting(tmp_path):
    with pytest.raises(PluginError, match="generic: true"):
        _site(tmp_path, "markdown_extensions:\n  - pymdownx.arithmatex\n")


def test_math_none_leaves_the_formulas_to_a_renderer_the_site_loads_another_way(tmp_path):
    """A site that loads its renderer from a template, not extra_javascript, sets ``math: none``."""
    for arithmatex in (ARITHMATEX, "markdown_extensions:\n  - pymdownx.arithmatex\n"):  # MathJax 2's way too
        config, files = _site(tmp_path / str(len(arithmatex)), arithmatex, katex=False)
        assert not any("katex" in name or "math" in name for name in (*config.extra_css, *files))
