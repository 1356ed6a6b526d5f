"""Approved outputs: a changed output fails with a diff naming the file; accept rewrites it."""

import pytest

from snippet_runner import Engine, SnippetError
from snippet_runner.checking.accept import HASH_SEEDS, approve
from snippet_runner.checking.pending import pending


@pytest.fixture
def run(write_snippet):
    """Run one snippet with an engine in the given approval mode, closing it afterwards."""
    engines = []

    def run(rel, mode):
        engines.append(Engine(write_snippet.snippets, approval_mode=mode, preload=()))
        return engines[-1].run(rel)

    yield run
    for engine in engines:
        engine.close()


def test_matching_output_is_approved(write_snippet, run):
    path = write_snippet("page/hello.py", "print('hello')\n")
    path.with_suffix(".out").write_text("hello\n")
    assert run("page/hello.py", "strict").verdict.approved


def test_changed_output_fails_with_a_unified_diff(write_snippet, run):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    with pytest.raises(SnippetError) as caught:
        run("page/hello.py", "strict")
    error = caught.value
    assert str(error).startswith("snippets/page/hello.py:1: output differs from the approved snippets/page/hello.out.")
    assert error.detail.splitlines() == [
        "--- snippets/page/hello.out (approved)",
        "+++ snippets/page/hello.out (this build)",
        "@@ -1 +1 @@",
        "-hello",
        "+hello, world",
    ]


def test_missing_approval_fails_in_strict_mode(write_snippet, run):
    write_snippet("page/new.py", "print('new')\n")
    with pytest.raises(SnippetError, match=r"no approved output yet: snippets/page/new.out is missing"):
        run("page/new.py", "strict")


def test_warn_mode_shows_the_new_output_and_keeps_the_diff(write_snippet, run):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    outcome = run("page/hello.py", "warn")
    assert outcome.output == "hello, world\n"
    assert not outcome.verdict.approved and "+hello, world" in outcome.verdict.diff


def approve_fresh(snippets, rel: str):
    """Approve ``rel`` the one way there is, from two fresh engines with the two hash seeds."""
    engines = [Engine(snippets, preload=(), worker_env={"PYTHONHASHSEED": s}) for s in HASH_SEEDS]
    try:
        (approval,) = approve(engines[0], engines[1], [rel])
    finally:
        for engine in engines:
            engine.close()
    return approval


def test_accept_writes_the_fresh_output_that_two_runs_agree_on(write_snippet):
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    approval = approve_fresh(write_snippet.snippets, "page/hello.py")
    assert approval.error is None and approval.updated == ["snippets/page/hello.out"]
    assert path.with_suffix(".out").read_text() == "hello, world\n"


def test_accept_refuses_what_two_runs_disagree_on_and_writes_nothing(write_snippet):
    """A set of strings prints in hash order, which differs between the two workers' seeds."""
    path = write_snippet("page/order.py", "print(list({'alpha', 'beta', 'gamma', 'delta', 'epsilon'}))\n")
    path.with_suffix(".out").write_text("old\n")
    approval = approve_fresh(write_snippet.snippets, "page/order.py")
    assert approval.error is not None and "printed something different in two fresh runs" in str(approval.error)
    assert path.with_suffix(".out").read_text() == "old\n"


def test_an_engine_cannot_approve_on_its_own(write_snippet):
    with pytest.raises(ValueError, match="approval_mode must be one of"):
        Engine(write_snippet.snippets, approval_mode="accept", preload=())
    engine = Engine(write_snippet.snippets, preload=())
    try:
        with pytest.raises(ValueError, match="two uncached engines"):
            list(approve(engine, engine, ["page/x.py"]))
    finally:
        engine.close()


def test_a_changed_input_is_caught_even_when_the_print_line_is_unchanged(write_snippet, run):
    path = write_snippet("page/square.py", "x = 2\nprint(x * x)\n")
    path.with_suffix(".out").write_text("4\n")
    assert run("page/square.py", "strict").verdict.approved
    path.write_text("x = 3\nprint(x * x)\n")
    with pytest.raises(SnippetError) as caught:
        run("page/square.py", "strict")
    assert "output differs from the approved snippets/page/square.out" in str(caught.value)
    assert "-4\n+9" in caught.value.detail


def test_an_approved_output_that_is_not_utf8_names_the_file_and_byte(write_snippet, run):
    path = write_snippet("page/hello.py", "print('hello')\n")
    path.with_suffix(".out").write_bytes(b"hel\xfflo\n")
    with pytest.raises(SnippetError) as caught:
        run("page/hello.py", "strict")
    assert str(caught.value).startswith("snippets/page/hello.out:1: is not UTF-8: byte 0xff at offset 3")


def test_pending_names_what_accepting_writes_rewrites_and_removes(write_snippet, run):
    """The serve notice's account, from the verdicts the rules gave the run (nothing compared again)."""
    path = write_snippet("page/hello.py", "print('hello, world')\n")
    path.with_suffix(".out").write_text("hello\n")
    path.with_suffix(".pictures.json").write_text("[]\n")  # approved pictures this run no longer shows
    waiting = pending(run("page/hello.py", "warn"))
    assert waiting is not None and waiting.kind == "changed"
    assert waiting.effects() == "rewrites snippets/page/hello.out and removes snippets/page/hello.pictures.json"
    write_snippet("page/new.py", "print('new')\n")
    assert pending(run("page/new.py", "warn")).line() == (
        "Not yet approved (new): snippets/page/new.py; `python -m snippet_runner accept page/new.py`"
        " writes snippets/page/new.out"
    )
    path.with_suffix(".out").write_text("hello, world\n")
    path.with_suffix(".pictures.json").unlink()
    assert pending(run("page/hello.py", "warn")) is None
