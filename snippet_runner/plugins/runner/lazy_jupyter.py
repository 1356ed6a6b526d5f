"""Import mkdocs-jupyter's heavy dependencies only when a notebook must really be read or converted.

Importing ``mkdocs_jupyter.plugin`` imports two libraries that a build with every notebook in
mkdocs-jupyter's own cache (keyed on the notebook's bytes) never calls:

* nbconvert, through ``mkdocs_jupyter.convert`` (about a second);
* jupytext, which the plugin calls only to read a Markdown page as a notebook (our settings
  ignore Markdown pages), and which imports tornado and jupyter_client: about 0.3 s of every
  build, a prose edit's included, while MkDocs loads its configuration.

:func:`defer_notebook_converter` puts a stand-in module in ``sys.modules`` for each: the plugin's
``import`` binds the stand-in, and the first attribute anyone reads of it imports the real module
(which then replaces the stand-in in ``sys.modules``) and answers from it. It must run before MkDocs
loads the mkdocs-jupyter plugin: the snippet-runner plugin is listed before it and calls it when its
module is imported.

Once loaded, nbconvert compiles its Jinja templates again for every notebook (mkdocs-jupyter makes
a new exporter, and so a new Jinja environment, per notebook): about 0.08 s of each conversion's
0.11 s. :func:`cache_compiled_templates` gives every environment nbconvert makes the bytecode
cache the theme's templates use, so each template is compiled once, and an edited one again.

Looked at first: the standard library's ``importlib.util.LazyLoader``. An ``import jupytext``
reads the module's ``__spec__`` to see whether it is still being imported, and any attribute read
makes a lazily loaded module load, so that import loaded jupytext at once. The stand-in has a
``__spec__`` of its own and loads on any other attribute.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from pathlib import Path

import jinja2

DEFERRED = ("jupytext", "mkdocs_jupyter.convert")
_compiled_into: list[Path] = []  # the bytecode cache's folder, once the plugin has named it


class _StandIn(types.ModuleType):
    """Stands for a module until one of its attributes is read; then imports it and answers from it."""

    def __getattr__(self, attribute: str):
        return getattr(_load(self.__name__), attribute)


def defer_notebook_converter() -> None:
    for name in DEFERRED:
        _defer(name)


def _defer(name: str) -> None:
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return
    if spec is None:
        return
    stand_in = _StandIn(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in
    package, _, attribute = name.rpartition(".")
    if package:  # what `from package import attribute` finds
        setattr(sys.modules[package], attribute, stand_in)


def _load(name: str) -> types.ModuleType:
    """The real module ``name``, imported now in place of its stand-in if that is still there."""
    module = sys.modules.get(name)
    if not isinstance(module, _StandIn):
        return module if module is not None else importlib.import_module(name)
    del sys.modules[name]
    try:
        with _entry_points_read_once():
            loaded = importlib.import_module(name)  # also makes it its package's attribute
    except BaseException:
        sys.modules[name] = module
        raise
    _share_compiled_templates()
    return loaded


@contextlib.contextmanager
def _entry_points_read_once():
    """While nbconvert is imported, each question to ``importlib.metadata.entry_points`` is
    answered once. nbconvert's application class lists its exporters when it is defined, and asks
    for the entry points once per exporter: 34 reads of every installed distribution's metadata,
    0.1 s of a cold build, for the same answer (none is installed meanwhile)."""
    from importlib import metadata

    read = metadata.entry_points
    answers: dict = {}

    def entry_points(**selection):
        key = tuple(sorted(selection.items()))
        if key not in answers:
            answers[key] = read(**selection)
        return answers[key]

    metadata.entry_points = entry_points
    try:
        yield
    finally:
        metadata.entry_points = read
        # a module that took the name while it was ours (its __dict__: reading an attribute of a
        # stand-in would load the module it stands for)
        for module in list(sys.modules.values()):
            names = getattr(module, "__dict__", None)  # never missing on a module: no __getattr__
            if names is not None and names.get("entry_points") is entry_points:
                module.entry_points = read


def cache_compiled_templates(folder: Path) -> None:
    """Every Jinja environment nbconvert makes from now on keeps its compiled templates in
    ``folder`` (Jinja's ``FileSystemBytecodeCache``, keyed by template and checked against its
    source), whether nbconvert is loaded yet or not."""
    _compiled_into[:] = [folder]
    if "nbconvert.exporters.templateexporter" in sys.modules:
        _share_compiled_templates()


def _share_compiled_templates() -> None:
    if not _compiled_into or "nbconvert.exporters.templateexporter" not in sys.modules:
        return
    from nbconvert.exporters.templateexporter import TemplateExporter

    create = TemplateExporter._create_environment
    if getattr(create, "shares_compiled_templates", False):
        return

    def _create_environment(self):
        environment = create(self)
        environment.bytecode_cache = jinja2.FileSystemBytecodeCache(str(_compiled_into[0]))
        return environment

    _create_environment.shares_compiled_templates = True  # type: ignore[attr-defined]
    TemplateExporter._create_environment = _create_environment  # type: ignore[method-assign]


def load_notebook_converter() -> None:
    """Import what :func:`defer_notebook_converter` deferred, now: for a build that has a moment to
    spare before it converts notebooks."""
    for name in DEFERRED:
        if isinstance(sys.modules.get(name), _StandIn):
            _load(name)
