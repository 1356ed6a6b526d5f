"""What ``mkdocs.yml`` may set under ``plugins: - snippet-runner:``, validated by MkDocs (its
``Config`` classes, as Material's plugins keep theirs in a ``config.py``)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from snippet_runner import defaults


class SnippetRunnerConfig(Config):
    snippets_dir = c.Type(str, default="snippets")
    cache_dir = c.Type(str, default=defaults.CACHE_DIR)
    approval = c.Choice(("strict", "warn"), default="strict")  # approving is `python -m snippet_runner accept`'s alone
    execute = c.Type(bool, default=True)
    preload = c.ListOfItems(c.Type(str), default=list(defaults.PRELOAD))
    # {snippet folder: docs folder}: each percent script there becomes <docs folder>/<name>.ipynb
    notebooks = c.Type(dict, default={})
    notebook_dir = c.Type(str, default=".cache/notebooks")
    # search ranking of the generated notebooks (Material's per-page boost; 1 is neutral)
    notebook_search_boost = c.Type((int, float), default=1.0)
    # a snippet whose output describes the build; templates see it as config.extra.build_info
    build_info = c.Optional(c.Type(str))
    # worker processes when many snippets must run (each imports torch once); 0: one per core
    workers = c.Type(int, default=0)
    # warm each worker, before it forks, with what the snippets touch in the preloaded packages
    # (warmup.py: read from their syntax trees), and with these dotted names too
    warm_up = c.Type(bool, default=True)
    warm_up_names = c.ListOfItems(c.Type(str), default=[])
