"""The include line: found where it should be, refused when malformed, ignored inside code fences."""

import pytest

from snippet_runner.errors import SnippetError
from snippet_runner.markdown.run_lines import find_includes


def test_finds_includes_with_their_lines_and_indentation():
    page = "# T\n\n{{ run a/one.py }}\n\n!!! tip\n    {{run a/two.py}}\n"
    found = find_includes(page, "docs/a.md")
    assert [(i.line, i.indent, i.rel) for i in found] == [(3, "", "a/one.py"), (6, "    ", "a/two.py")]


def test_directive_inside_a_code_fence_is_text():
    page = "````markdown\n{{ run a/one.py }}\n```\n````\n"
    assert find_includes(page, "docs/a.md") == []


@pytest.mark.parametrize(
    "line",
    ["{{ run a/one.py", "{{ runn a/one.py }}", "{{ run a/one.txt }}", "{{ run }}", "{{ run a/one.py extra }}"],
)
def test_malformed_include_names_the_page_line(line):
    with pytest.raises(SnippetError) as caught:
        find_includes(f"# T\n\n{line}\n", "docs/a.md")
    assert str(caught.value).startswith(f"docs/a.md:3: malformed include {line!r}")


def test_a_predict_question_is_read_from_the_include_line():
    page = '# T\n\n{{ run a/one.py predict="What is x.grad?" }}\n\n{{ run a/two.py }}\n'
    found = find_includes(page, "docs/a.md")
    assert [(i.rel, i.question) for i in found] == [("a/one.py", "What is x.grad?"), ("a/two.py", None)]


@pytest.mark.parametrize("line", ['{{ run a/one.py predict="" }}', "{{ run a/one.py predict=x }}"])
def test_a_malformed_predict_question_is_refused(line):
    with pytest.raises(SnippetError, match="malformed include"):
        find_includes(f"# T\n\n{line}\n", "docs/a.md")


def test_the_fences_verify_runs_are_those_the_include_scanner_skips(tmp_path):
    """One scanner, two closing rules: the includes' (CommonMark) and verify's (the opening's own backticks)."""
    from snippet_runner.verify import fences

    page = tmp_path / "a.md"
    page.write_text(
        "~~~text\n```python\nnot_run()\n```\n~~~\n"  # a fence shown inside a tilde fence is text
        "!!! tip\n    ```py\n    x = 1\n    ```\n"
        "```python notest\nskipped()\n```\n"
        "{{ run a/one.py }}\n"
    )
    assert fences(page, "docs/a.md") == [("docs/a.md:7", "py", "x = 1\n")]
    assert [i.line for i in find_includes(page.read_text(), "docs/a.md")] == [13]
