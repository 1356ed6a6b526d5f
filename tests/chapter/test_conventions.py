"""Conventions that keep the repository navigable and the outputs honest."""

import re

from real_chapter import DOCS, PROJECT, ROOT, SNIPPETS

from snippet_runner.running.snippet import approved_rel


def test_snippet_folders_mirror_the_pages_that_include_them():
    for rel, pages in PROJECT.includes().items():
        folder = rel.split("/")[0]
        for page in pages:
            page_name = page.split(":")[0].removeprefix("docs/").removesuffix(".md").replace("-", "_")
            assert folder == page_name, f"{page} includes snippets/{rel}: move it to snippets/{page_name}/"


def test_every_snippet_is_shown_somewhere_and_has_an_approved_output():
    shown = set(PROJECT.shown())
    files = set(PROJECT.snippet_files())
    assert files == shown, f"not shown on any page: {sorted(files - shown)}"
    approved = {approved_rel(rel) for rel in files}
    for rel in approved:
        assert (SNIPPETS / rel).is_file(), f"{rel} is missing"
    outs = {p.relative_to(SNIPPETS).as_posix() for p in SNIPPETS.rglob("*.out")}
    assert outs == approved, f"approved outputs without a snippet: {sorted(outs - approved)}"


OUTPUT_LIKE = re.compile(
    r"^\s*(tensor\(|Before reset:|After reset:|dz/d[xy] =|Epoch \d+,|Step \d+:|Traceback \(most recent|RuntimeError:)"
)


def test_no_output_is_typed_into_a_page():
    for page in DOCS.rglob("*.md"):
        for number, line in enumerate(page.read_text().splitlines(), start=1):
            assert not OUTPUT_LIKE.match(line), f"{page.relative_to(ROOT)}:{number} looks like a typed output: {line!r}"


def test_every_python_dependency_is_pinned_and_torch_is_the_cpu_release():
    lines = [
        line.strip()
        for name in ("requirements.txt", "constraints.txt")  # constraints: PyPI's CUDA build's (issue 42)
        for line in (ROOT / name).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    # an environment marker may choose the pin for the oldest Pythons (issue 42)
    pin = r'[A-Za-z0-9_.\-\[\]]+==[\w.]+(; python_full_version [<>]=? "[\d.]+")?'
    assert lines and all(re.fullmatch(pin, line) for line in lines), lines
    assert "torch==2.13.0" in lines
    for named in ("mkdocs-material", "mkdocs-jupyter", "pytest-markdown-docs", "mkdocs"):
        assert any(line.lower().startswith(f"{named}==") for line in lines), named


def test_every_approved_picture_file_belongs_to_a_snippet():
    for path in SNIPPETS.rglob("*.pictures.json"):
        snippet = path.with_name(path.name.removesuffix(".pictures.json") + ".py")
        assert snippet.is_file(), f"{path.relative_to(ROOT)} has no snippet {snippet.name}"


# The widest code line that fits in a listing without scrolling at 1280 px: a numbered snippet listing
# is about 648 px wide, a notebook code cell about 570 px, and the code font at that size takes
# 8.5 px a character. tests/browser/layout.py checks the same in the browser (within the accessibility audit).
LISTING_CHARS = 75
NOTEBOOK_CELL_CHARS = 66


def _code_lines(path):
    """(number, line) of the code a reader sees: all of a snippet, the code cells of an exercise."""
    in_markdown = False
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith("# %%"):
            in_markdown = "[markdown]" in line
            continue
        if not in_markdown and not line.startswith("# snippet:"):  # engine directives are not shown
            yield number, line


def test_no_code_line_is_wider_than_its_listing():
    long = []
    for path in sorted(SNIPPETS.rglob("*.py")):
        limit = NOTEBOOK_CELL_CHARS if path.parent.name == "exercises" else LISTING_CHARS
        long += [f"{path.relative_to(ROOT)}:{n} ({len(line)})" for n, line in _code_lines(path) if len(line) > limit]
    assert long == [], "wrap long comments and lines in the source"
