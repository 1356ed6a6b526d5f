"""Approved outputs: a changed output fails with a diff naming the file; accept rewrites it."""

import pytest

from snippet_runner import Engine, SnippetError


def make(write_snippet, mode):
    return Engine(write_snippet.snippets, approval_mode=mode, preload=())


def test_matching_output_is_approved(write_snippet):
    path = write_snippet("page/hello.py", "print('hello')\n")
    path.with_suffix(".out").write_text("hello\n")
    engine = make(write_snippet, "strict")
    try:
        assert engine.run("page/hello.py").verdict.approved
    finally:
        engine.close()


def test_changed_output_fails_with_a_unified_diff(write_snippet):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    engine = make(write_snippet, "strict")
    try:
        with pytest.raises(SnippetError) as caught:
            engine.run("page/hello.py")
    finally:
        engine.close()
    error = caught.value
    assert str(error).startswith(
        "snippets/page/hello.py:1: output differs from the approved snippets/page/hello.out."
    )
    assert error.detail.splitlines() == [
        "--- snippets/page/hello.out (approved)",
        "+++ snippets/page/hello.out (this build)",
        "@@ -1 +1 @@",
        "-hello",
        "+hello, world",
    ]


def test_missing_approval_fails_in_strict_mode(write_snippet):
    write_snippet("page/new.py", "print('new')\n")
    engine = make(write_snippet, "strict")
    try:
        with pytest.raises(SnippetError, match=r"no approved output yet: snippets/page/new.out is missing"):
            engine.run("page/new.py")
    finally:
        engine.close()


def test_warn_mode_shows_the_new_output_and_keeps_the_diff(write_snippet):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    engine = make(write_snippet, "warn")
    try:
        outcome = engine.run("page/hello.py")
    finally:
        engine.close()
    assert outcome.output == "hello, world\n"
    assert not outcome.verdict.approved and "+hello, world" in outcome.verdict.diff


def test_accept_writes_the_fresh_output(write_snippet):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    engine = make(write_snippet, "accept")
    try:
        engine.run("page/hello.py")
    finally:
        engine.close()
    assert path.with_suffix(".out").read_text() == "hello, world\n"
