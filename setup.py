"""The wheel carries what the engine runs at build time besides Python: Graphviz compiled to
WebAssembly (``@viz-js/viz``, from npm: ``package-lock.json``), copied from ``node_modules`` into the
package, where ``pictures/vizjs.mjs`` finds it, so an installed engine needs no clone and no npm.
setuptools' ``package-data`` takes only files inside the package; npm's files are outside it until
this step copies them. An editable install finds them in ``node_modules`` where they are."""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

VIZ = Path(__file__).resolve().parent / "node_modules" / "@viz-js" / "viz"
VIZ_FILES = ("package.json", "dist/viz.js")  # the ES module is self-contained: the WebAssembly is inlined
INTO = Path("snippet_runner") / "pictures" / "node_modules" / "@viz-js" / "viz"


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        missing = [name for name in VIZ_FILES if not (VIZ / name).is_file()]
        if missing:
            sys.exit(f"error: {VIZ}/{missing[0]} is missing: run `npm ci` here before building the wheel")
        for name in VIZ_FILES:
            target = Path(self.build_lib) / INTO / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(VIZ / name, target)


setup(cmdclass={"build_py": BuildPy})
