"""The project model: every setting of the engine, and which snippets the site shows, in one object.

Settings live once, in ``mkdocs.yml``, validated by MkDocs (``plugins/runner/config.py``); the
plugin, the CLI, the tests and ``make bench`` all build a :class:`Project` from it, so none drifts
from the build. :meth:`Project.shown` works out, once, what a page includes and the notebook scripts.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner import defaults
from snippet_runner.errors import SetupError, SnippetError
from snippet_runner.markdown.run_lines import find_includes


@dataclass(frozen=True)
class PdfTarget:
    """Where the print-site plugin's one-page chapter is, and where ``make site`` prints it."""

    print_page: str  # basename of the print page in the site, e.g. "print_page"
    path: str  # the PDF, relative to the site, e.g. "pdf/chapter.pdf"


@dataclass(frozen=True)
class Project:
    root: Path
    docs_dir: Path
    snippets_dir: Path
    cache_dir: Path
    notebook_dir: Path
    preload: tuple[str, ...] = defaults.PRELOAD
    approval: str = "strict"
    execute: bool = True
    notebooks: dict[str, str] = field(default_factory=dict)  # snippet folder -> docs folder
    notebook_search_boost: float = 1.0
    build_info: str | None = None
    pdf: PdfTarget | None = None
    workers: int = 0
    warm_up: bool = True
    warm_up_names: tuple[str, ...] = ()
    site_name: str = ""  # names the examples' zip and its README

    def __post_init__(self) -> None:
        """Every configured path stays inside the project (symlinks resolved)."""
        for name in ("snippets_dir", "cache_dir", "notebook_dir"):
            path = getattr(self, name)
            if not path.resolve().is_relative_to(self.root) or path.resolve() == self.root:
                raise _config_error(name, f"{path} is not a folder inside the project ({self.root})")
        for folder, docs_folder in self.notebooks.items():
            for base, rel in ((self.snippets_dir, folder), (self.docs_dir, docs_folder)):
                if Path(rel).is_absolute() or not (base / rel).resolve().is_relative_to(base.resolve()):
                    raise _config_error("notebooks", f"{rel!r} must be a folder inside {self.shown_path(base)}/")
        if self.pdf is not None:
            pdf = Path(self.pdf.path)
            if pdf.is_absolute() or ".." in pdf.parts or pdf.suffix.lower() != ".pdf":
                raise _config_error(
                    "print-site path_to_pdf", f"{self.pdf.path!r} must be a relative path to a .pdf inside the site"
                )

    @classmethod
    def from_config(cls, mkdocs_config, plugin_config) -> Project:
        """From MkDocs' validated configuration; paths are relative to ``mkdocs.yml``'s folder."""
        root = Path(mkdocs_config.config_file_path or "mkdocs.yml").resolve().parent
        return cls(
            root=root,
            docs_dir=Path(mkdocs_config.docs_dir).resolve(),
            snippets_dir=(root / plugin_config.snippets_dir).resolve(),
            cache_dir=(root / plugin_config.cache_dir).resolve(),
            notebook_dir=(root / plugin_config.notebook_dir).resolve(),
            preload=tuple(plugin_config.preload),
            approval=plugin_config.approval,
            execute=plugin_config.execute,
            notebooks=dict(plugin_config.notebooks),
            notebook_search_boost=plugin_config.notebook_search_boost,
            build_info=plugin_config.build_info,
            pdf=_pdf_target(mkdocs_config),
            workers=plugin_config.workers,
            warm_up=plugin_config.warm_up,
            warm_up_names=tuple(plugin_config.warm_up_names),
            site_name=mkdocs_config.site_name or "",
        )

    @classmethod
    def load(cls, config_file: Path | str = "mkdocs.yml") -> Project:
        """Read and validate ``mkdocs.yml`` exactly as a build does (plugins included)."""
        from mkdocs.config import load_config
        from mkdocs.exceptions import ConfigurationError

        try:  # a missing file, bad YAML, or a setting MkDocs refuses: its own message, no traceback
            config = load_config(str(config_file))
        except ConfigurationError as error:
            raise SetupError(str(config_file), str(error)) from None
        plugin = config.plugins.get(defaults.PLUGIN)
        if plugin is None:
            raise SetupError(str(config_file), f"does not list the {defaults.PLUGIN} plugin")
        return cls.from_config(config, plugin.config)

    def shown_path(self, path: Path) -> str:
        """A path as messages show it: relative to the project, with forward slashes."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    @property
    def pdf_cache_dir(self) -> Path:
        """Printed PDFs, by the hash of what they print (``site/pdf_cache.py``), beside the snippet cache."""
        return self.cache_dir.parent / "pdf"

    @property
    def report_path(self) -> Path:
        """The execution report (``report.py``), a build's log: beside the caches, never in the site."""
        return self.cache_dir.parent / "build-log" / "execution-report.html"

    @property
    def snippets_name(self) -> str:
        """The snippets folder as messages name it (``snippets``)."""
        return self.shown_path(self.snippets_dir)

    def pages(self) -> list[Path]:
        return sorted(self.docs_dir.rglob("*.md"))

    def includes(self) -> dict[str, list[str]]:
        """``{"page/example.py": ["docs/page.md:31", ...]}``, pages in name order."""
        found: dict[str, list[str]] = defaultdict(list)
        for page in self.pages():
            name = self.shown_path(page)
            for include in find_includes(page.read_text(encoding="utf-8"), name):
                found[include.rel].append(f"{name}:{include.line}")
        return dict(found)

    def notebook_pages(self) -> dict[str, str]:
        """``{"exercises/exercise_1.py": "exercises/exercise_1.ipynb"}``: each notebook script's page."""
        found = {}
        for folder, docs_folder in self.notebooks.items():
            for script in sorted((self.snippets_dir / folder).glob("*.py")):
                found[f"{folder.strip('/')}/{script.name}"] = f"{docs_folder.strip('/')}/{script.stem}.ipynb"
        return found

    def shown(self) -> dict[str, list[str]]:
        """Every snippet the site shows, and where: page includes first, then the notebooks."""
        shown = self.includes()
        docs = self.shown_path(self.docs_dir)
        for rel, page in self.notebook_pages().items():
            shown.setdefault(rel, []).append(f"{docs}/{page}")
        return shown

    def snippet_files(self) -> list[str]:
        """Every ``.py`` file in the snippets folder, relative to it, sorted."""
        return sorted(p.relative_to(self.snippets_dir).as_posix() for p in self.snippets_dir.rglob("*.py"))

    def for_build(self, serving: bool = False) -> tuple[str, bool]:
        """``(approval, execute)`` from the settings and ``SNIPPETS_APPROVAL``/``SNIPPETS_EXECUTE``;
        ``mkdocs serve`` only warns. An unknown mode is returned for the caller to refuse."""
        execute = os.environ.get("SNIPPETS_EXECUTE", "1" if self.execute else "0") != "0"
        return os.environ.get("SNIPPETS_APPROVAL", "warn" if serving else self.approval), execute

    def engine(
        self,
        *,
        approval: str | None = None,
        cached: bool = True,
        execute: bool | None = None,
        worker_env: dict[str, str] | None = None,
        python: str | None = None,
    ):
        """An :class:`~snippet_runner.checking.engine.Engine` with this project's settings."""
        from snippet_runner.checking.engine import Engine

        return Engine(
            self.snippets_dir,
            self.cache_dir if cached else None,
            approval_mode=approval or self.approval,
            execute=self.execute if execute is None else execute,
            preload=self.preload,
            shown_as=self.snippets_name,
            worker_env=worker_env,
            workers=self.workers or len(os.sched_getaffinity(0)),
            python=python,
            warm_up=self.warm_up,
            warm_up_names=self.warm_up_names,
        )


def _config_error(setting: str, problem: str) -> SnippetError:
    return SnippetError(f"mkdocs.yml (snippet-runner {setting})", problem)


def _pdf_target(mkdocs_config) -> PdfTarget | None:
    plugin = mkdocs_config.plugins.get("print-site")
    if plugin is None or not plugin.config.get("enabled") or not plugin.config.get("path_to_pdf"):
        return None
    return PdfTarget(plugin.config["print_page_basename"], plugin.config["path_to_pdf"])
