"""``python -m snippet_runner init``: a starter project in the current folder, set up as the guide
(dev/your-own-chapter.md) says: Material, the engine's plugins and print-site, one page showing one
example, and a ``.gitignore`` for everything a build writes. It never overwrites a file."""

from __future__ import annotations

import string
import sys
from pathlib import Path

from snippet_runner import defaults

TEMPLATES = Path(__file__).with_name("starter_project")
# where each template is written: named otherwise in the package, where a .gitignore or a module would act
NAMES = {
    "mkdocs.yml": "mkdocs.yml",
    "docs/index.md": "index.md",
    "snippets/index/first_gradient.py": "first_gradient.py.txt",
    ".gitignore": "gitignore",
}
FILES = {
    name: string.Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(plugin=defaults.PLUGIN)
    for name, template in NAMES.items()
}


def main(folder: Path) -> int:
    taken = [name for name in FILES if (folder / name).exists()]
    if taken:
        print(f"init: not written, these files exist already: {', '.join(taken)}", file=sys.stderr)
        return 1
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    print(
        "init: wrote mkdocs.yml, docs/index.md, snippets/index/first_gradient.py and .gitignore. Next:"
        " `python -m snippet_runner serve`, then `python -m snippet_runner accept index/first_gradient.py`"
    )
    return 0
