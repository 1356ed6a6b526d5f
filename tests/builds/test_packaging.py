"""The package installs as a package: what it imports is declared, its version is written once, and
its plugins are registered by name (none is loaded by file path)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from real_chapter import ROOT

import snippet_runner

PACKAGE = ROOT / "snippet_runner"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _third_party_imports() -> dict[str, str]:
    """Every top-level module the package imports that is neither its own nor the standard library's:
    ``{module: first file that imports it}``."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "snippet_runner" and top not in sys.stdlib_module_names:
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


# Imported only inside a snippet's own process, which runs the project's pinned torch (requirements.txt);
# declaring it would let pip pull a multi-GB CUDA build (pyproject.toml says why).
NOT_DECLARED = {"torch"}


def test_every_library_the_package_imports_is_a_declared_dependency_or_extra():
    project = PYPROJECT["project"]
    declared = {_name(r) for r in project["dependencies"]}
    declared |= {_name(r) for extra in project["optional-dependencies"].values() for r in extra}
    owners = metadata.packages_distributions()
    undeclared = {
        module: where
        for module, where in _third_party_imports().items()
        if module not in NOT_DECLARED
        and not {d.lower().replace("_", "-") for d in owners.get(module, [module])} & declared
    }
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_version_is_written_once_and_installed_as_written():
    assert "version" not in PYPROJECT["project"] and PYPROJECT["project"]["dynamic"] == ["version"]
    assert metadata.version("snippet-runner") == snippet_runner.__version__


def test_every_plugin_is_registered_by_name_and_none_is_a_hook_by_path():
    registered = {
        ep.name: ep.value
        for ep in metadata.entry_points(group="mkdocs.plugins")
        if ep.value.startswith("snippet_runner")
    }
    assert set(registered) == set(PYPROJECT["project"]["entry-points"]["mkdocs.plugins"])
    for value in registered.values():
        module, _, cls = value.partition(":")
        assert hasattr(__import__(module, fromlist=[cls]), cls), value
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "\nhooks:" not in config
    assert all(f"  - {name}" in config for name in registered), "a registered plugin the site does not use"


def test_the_dev_tools_are_outside_the_runtime_package():
    assert not list(PACKAGE.rglob("bench.py")) and not list(PACKAGE.rglob("scratch.py"))
    assert (ROOT / "devtools" / "bench.py").is_file() and Path(ROOT / "devtools" / "scratch.py").is_file()


def test_the_scripts_the_pdf_runs_in_the_browser_are_package_data():
    # pdf.script() reads snippet_runner/site/scripts/*.js at run time: a wheel without them prints nothing.
    tables = PYPROJECT["tool"]["setuptools"]["package-data"]
    scripts = sorted((PACKAGE / "site" / "scripts").glob("*.js"))
    assert scripts
    for script in scripts:
        assert any(
            script.is_relative_to(base) and script.relative_to(base).match(pattern)
            for package, patterns in tables.items()
            for base in [ROOT / package.replace(".", "/")]
            for pattern in patterns
        ), script.name
