"""What ``mkdocs.yml`` may set under ``plugins: - snippet-runner:``, validated by MkDocs (its
``Config`` classes, as Material's plugins keep theirs in a ``config.py``)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from snippet_runner import defaults


class SnippetRunnerConfig(Config):
    # the folder of the examples, beside mkdocs.yml; `{{ run page/example.py }}` names a file in it
    snippets_dir = c.Type(str, default="snippets")
    # each run's result, keyed by what can change its output (the notebooks, PDF and report go beside it)
    cache_dir = c.Type(str, default=defaults.CACHE_DIR)
    # strict: an unapproved output stops the build; warn: it is shown under a notice (serve always warns).
    # Approving is `python -m snippet_runner accept`'s alone
    approval = c.Choice(("strict", "warn"), default="strict")
    # false: show the code without running it (no outputs, no pictures)
    execute = c.Type(bool, default=True)
    # modules each worker imports once before it forks a snippet
    preload = c.ListOfItems(c.Type(str), default=list(defaults.PRELOAD))
    # {snippet folder: docs folder}: each percent script there becomes <docs folder>/<name>.ipynb
    notebooks = c.Type(dict, default={})
    # where the exercise notebooks are written before mkdocs-jupyter renders them
    notebook_dir = c.Type(str, default=".cache/notebooks")
    # search ranking of the generated notebooks (Material's per-page boost; 1 is neutral)
    notebook_search_boost = c.Type((int, float), default=1.0)
    # a snippet whose output describes the build; templates see it as config.extra.build_info
    build_info = c.Optional(c.Type(str))
    # worker processes when many snippets must run (each imports torch once); 0: one per core
    workers = c.Type(int, default=0)
    # warm each worker, before it forks, with what the snippets touch in the preloaded packages
    # (warmup.py: read from their syntax trees)
    warm_up = c.Type(bool, default=True)
    # dotted names each worker is warmed with too
    warm_up_names = c.ListOfItems(c.Type(str), default=[])
    # pymdownx.arithmatex's formulas, where extra_javascript names no renderer: katex, the engine's
    # own (from npm, in the wheel); none, for a site that loads a renderer another way (a template)
    math = c.Choice(("katex", "none"), default="katex")
