"""The two reference tables of dev/your-own-chapter.md, made from the code's own definitions so they
cannot drift: the plugin's options (``plugins/runner/config.py``: each option, its default, and the
comment above it) and the ``# snippet:`` settings (``running/snippet.py``). ``python -m
devtools.guide_tables`` rewrites them in the guide; tests/engine/test_guide.py checks they match."""

from __future__ import annotations

import io
import json
import re
import sys
import tokenize
from pathlib import Path

from mkdocs.config import config_options as c

from snippet_runner.plugins.runner import config
from snippet_runner.running.settings import table

GUIDE = Path(__file__).resolve().parents[1] / "dev" / "your-own-chapter.md"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n).*?(<!-- end: (?P=name) -->)", re.S)


def _comments(source: str) -> dict[str, str]:
    """Each option's name, and the comment lines right above its line (or at its end)."""
    found: dict[str, str] = {}
    above: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            above.append(token.string.lstrip("# ").rstrip())
        elif token.type == tokenize.NAME and token.start[1] == 4 and token.line.strip().startswith(token.string + " ="):
            trailing = token.line.split("#", 1)[1].strip() if "#" in token.line.split(")")[-1] else ""
            found[token.string] = " ".join([*above, trailing]).strip()
            above = []
        elif token.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            above = [] if token.type == tokenize.NEWLINE and not token.line.strip().startswith("#") else above
    return found


def _kind(option) -> str:
    if isinstance(option, c.Choice):
        return " or ".join(f"`{choice}`" for choice in option.choices)
    if isinstance(option, c.ListOfItems):
        return "list"
    if isinstance(option, c.Optional):
        return "text (optional)"
    names = {"str": "text", "bool": "true/false", "dict": "mapping", "int": "integer", "float": "number"}
    return names.get(type(option.default).__name__, type(option.default).__name__)


def plugin_options() -> str:
    """The table of what ``plugins: - snippet-runner:`` accepts."""
    described = _comments(Path(config.__file__).read_text(encoding="utf-8"))
    rows = ["| Option | Takes | Default | What it does |", "| --- | --- | --- | --- |"]
    for name, option in vars(config.SnippetRunnerConfig).items():
        if isinstance(option, c.BaseConfigOption):
            default = "none" if option.default is None else f"`{json.dumps(option.default)}`"
            rows.append(f"| `{name}` | {_kind(option)} | {default} | {described.get(name, '')} |")
    return "\n".join(rows)


def settings() -> str:
    """The table of the ``# snippet:`` settings, as running/settings.py's table makes it for AUTHORING.md."""
    return table(limits_only=False).rstrip("\n")


TABLES = {"plugin-options": plugin_options, "snippet-settings": settings}


def rewritten(text: str) -> str:
    return BLOCK.sub(lambda m: m[1] + TABLES[m["name"]]() + "\n" + m[3], text)


if __name__ == "__main__":
    GUIDE.write_text(rewritten(GUIDE.read_text(encoding="utf-8")), encoding="utf-8")
    sys.exit(0)
