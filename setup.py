"""The wheel carries what the engine runs at build time besides Python: Graphviz compiled to
WebAssembly (``@viz-js/viz``, from npm: ``package-lock.json``), copied from ``node_modules`` into the
package, where ``pictures/vizjs.mjs`` finds it, so an installed engine needs no clone and no npm.
And KaTeX (npm's ``katex``), which the plugin adds to a site whose formulas have no renderer of its
own (``plugins/runner/reader_assets.py``): its script, stylesheet, auto-render and fonts, into
``plugins/runner/assets/katex/`` as laid out in its ``dist``, with its license. Of the fonts only the
woff2 files: each ``@font-face`` of ``katex.min.css`` lists woff2 first, and every browser Material
supports, the Chromium that prints the PDF included, reads woff2, so the woff and ttf after it are
never fetched (about 900 kB the wheel does without).
setuptools' ``package-data`` takes only files inside the package; npm's files are outside it until
this step copies them. An editable install finds them in ``node_modules`` where they are."""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NODE_MODULES = Path(__file__).resolve().parent / "node_modules"
VIZ = NODE_MODULES / "@viz-js" / "viz"
VIZ_FILES = ("package.json", "dist/viz.js")  # the ES module is self-contained: the WebAssembly is inlined
INTO = Path("snippet_runner") / "pictures" / "node_modules" / "@viz-js" / "viz"
KATEX = NODE_MODULES / "katex"
KATEX_FILES = ("LICENSE", "dist/katex.min.js", "dist/katex.min.css", "dist/contrib/auto-render.min.js")
KATEX_INTO = Path("snippet_runner") / "plugins" / "runner" / "assets" / "katex"


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        fonts = [f"dist/fonts/{font.name}" for font in sorted((KATEX / "dist" / "fonts").glob("*.woff2"))]
        copies = [(VIZ / name, INTO / name) for name in VIZ_FILES]
        copies += [(KATEX / name, KATEX_INTO / name.removeprefix("dist/")) for name in (*KATEX_FILES, *fonts)]
        missing = [source for source, _ in copies if not source.is_file()] or ([] if fonts else [KATEX / "dist/fonts"])
        if missing:
            sys.exit(f"error: {missing[0]} is missing: run `npm ci` here before building the wheel")
        for source, into in copies:
            target = Path(self.build_lib) / into
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


setup(cmdclass={"build_py": BuildPy})
