"""The plugin's name in ``mkdocs.yml`` and the defaults of the settings that a build reads before
MkDocs does (``site/skip.py``, to start a worker ahead), kept here so that the settings
(``project.py``) and that early reading cannot disagree."""

PLUGIN = "snippet-runner"
CACHE_DIR = ".cache/snippets"  # the snippet cache, relative to the folder that holds mkdocs.yml
PRELOAD = ("torch",)  # what a worker imports before its first fork
