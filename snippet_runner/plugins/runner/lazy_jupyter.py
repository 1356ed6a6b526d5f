"""Import mkdocs-jupyter's converter only when a notebook must really be converted.

Importing ``mkdocs_jupyter.plugin`` imports nbconvert (about a
second) even when every notebook page comes from mkdocs-jupyter's own cache, which is keyed on the
notebook's bytes. :func:`defer_notebook_converter` makes ``mkdocs_jupyter.convert`` a lazily loaded
module (``importlib.util.LazyLoader``), so nbconvert is imported only when a notebook really has to
be converted. It must run before MkDocs loads the mkdocs-jupyter plugin: the snippet-runner plugin
is listed before it and calls it when its module is imported.
"""

from __future__ import annotations

import importlib.util
import sys


def defer_notebook_converter() -> None:
    name = "mkdocs_jupyter.convert"
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    setattr(sys.modules["mkdocs_jupyter"], "convert", module)  # noqa: B010 - the package has not imported it


def load_notebook_converter() -> None:
    """Import what :func:`defer_notebook_converter` deferred, now (nbconvert): for a build that
    has a moment to spare before it converts notebooks."""
    module = sys.modules.get("mkdocs_jupyter.convert")
    if module is not None:
        getattr(module, "__name__", None)  # a lazily loaded module runs on its first attribute access
