"""Command line: ``python -m snippet_runner {site,accept}``; the Makefile's targets call these."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from snippet_runner import catalog, site
from snippet_runner.engine import Engine
from snippet_runner.errors import SnippetError


def accept(root: Path, only: list[str]) -> int:
    """Run every included snippet fresh and write its output as the approved one."""
    snippets_dir = root / "snippets"
    included = catalog.includes_by_snippet(root / "docs")
    for rel, notebook in catalog.notebook_scripts(root).items():
        included.setdefault(rel, []).append(notebook)
    rels = only or list(included)
    engine = Engine(snippets_dir, root / ".cache" / "snippets", approval_mode="accept")
    changed = failed = 0
    try:
        engine.prefetch(rels)
        for rel in rels:
            try:
                outcome = engine.run(rel)
            except SnippetError as error:
                pages = ", ".join(included.get(rel, [])) or "no page"
                print(f"FAILED  {error}  (included by {pages})", file=sys.stderr)
                failed += 1
                continue
            if outcome.verdict.changed:
                changed += 1
                print(f"updated snippets/{rel[:-3]}.out")
    finally:
        engine.close()
    print(f"accept: {len(rels)} snippets, {changed} outputs updated, {failed} failed")
    stale = [rel for rel in catalog.snippet_files(snippets_dir) if rel not in included]
    for rel in stale:
        print(f"note: snippets/{rel} is not included by any page")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m snippet_runner")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("site", help="build site/ atomically (keeps the old site if the build fails)")
    build.add_argument("--site-dir", type=Path, default=Path("site"))
    build.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    approve = sub.add_parser("accept", help="re-run snippets and approve their outputs")
    approve.add_argument("snippets", nargs="*", help="paths relative to snippets/ (default: all included)")
    args = parser.parse_args(argv)
    if args.command == "site":
        return site.build(args.site_dir, args.config_file)
    return accept(Path.cwd(), args.snippets)


if __name__ == "__main__":
    sys.exit(main())
