"""``python -m snippet_runner init``: a starter project in the current folder, set up as the guide
(dev/your-own-chapter.md) says: Material, the engine's plugins and print-site, one page showing one
example, and a ``.gitignore`` for everything a build writes. It never overwrites a file."""

from __future__ import annotations

import sys
from pathlib import Path

from snippet_runner import defaults

FILES = {
    "mkdocs.yml": f"""\
site_name: My chapter
strict: true
theme:
  name: material
  font: false  # no Google Fonts: the site reads offline
plugins:
  - search
  - {defaults.PLUGIN}  # runs each {{{{ run ... }}}} line's example, confined, against its approved output
  - print-page-ids  # unique ids on print-site's page; listed before print-site, which must be last
  - print-site:  # one page of every page, printed to the PDF by `python -m snippet_runner site`
      add_cover_page: false
      path_to_pdf: pdf/chapter.pdf
      add_print_site_banner: false
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.highlight
  - pymdownx.superfences
""",
    "docs/index.md": """\
# My chapter

A gradient, computed by PyTorch and printed by a real run of the example below.

{{ run index/first_gradient.py }}
""",
    "snippets/index/first_gradient.py": """\
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**2
y.backward()
print(x.grad)
""",
    ".gitignore": """\
# what the engine and MkDocs write: the built site, a build's staging and retired folders and its
# lock, the caches (snippets, notebooks, PDF, the execution report), Python's bytecode
/site/
/site.*/
/.site.lock
.cache/
__pycache__/
.pytest_cache/
""",
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
