"""Defaults of the settings a build reads before MkDocs does (``site/skip.py``), kept here so
they and ``project.py`` cannot disagree."""

PLUGIN = "snippet-runner"
CACHE_DIR = ".cache/snippets"  # the snippet cache, relative to the folder that holds mkdocs.yml
PRELOAD = ("torch",)  # what a worker imports before its first fork
