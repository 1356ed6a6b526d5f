"""Import mkdocs-jupyter's converter, and jupytext, only when a notebook must really be made.

Importing ``mkdocs_jupyter.plugin`` imports nbconvert (about a second) and jupytext (about a third
of one) even when every notebook page comes from mkdocs-jupyter's own cache, which is keyed on the
notebook's bytes, and every generated notebook is unchanged. :func:`defer_notebook_converter` makes
``mkdocs_jupyter.convert`` and ``jupytext`` lazily loaded modules (``importlib.util.LazyLoader``):
each is imported when first used, by a conversion, or by a notebook written again
(``markdown/notebooks.py``; mkdocs-jupyter itself reads with jupytext only the Markdown pages it is
told not to ignore). It must run before MkDocs loads the mkdocs-jupyter plugin: the snippet-runner
plugin is listed before it and calls it when its module is imported.
"""

from __future__ import annotations

import importlib.util
import sys


def defer_notebook_converter() -> None:
    _defer("jupytext")
    converter = _defer("mkdocs_jupyter.convert")
    if converter is not None:
        setattr(sys.modules["mkdocs_jupyter"], "convert", converter)  # noqa: B010 - the package has not imported it


def _defer(name: str):
    """``name`` in ``sys.modules`` as a module that is executed when first used; None if it is
    imported already or not installed."""
    if name in sys.modules:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    if spec is None or spec.loader is None:
        return None
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
