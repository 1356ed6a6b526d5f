"""Pictures from real runs: captured in the snippet's process from its settings (``record``), drawn as SVG in the build (``draw``)."""
