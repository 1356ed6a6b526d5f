"""Pictures from real runs: recorded in the snippet's process (``record``), drawn as SVG in the build (``draw``)."""

from snippet_runner.pictures.record import show_curves, show_graph

__all__ = ["show_curves", "show_graph"]
