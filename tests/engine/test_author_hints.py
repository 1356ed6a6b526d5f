"""Where an author's typo is likely, the message points at it: a misspelled ``# snippet:`` setting
names its line and the right spelling (and what the run then did), and a timeout names the setting
that raises the limit. Its own engine, which preloads nothing: these snippets need no torch."""

from __future__ import annotations

import pytest
from throwaway import new_build, snippet_writer

from snippet_runner import Engine, SnippetError
from snippet_runner.running.snippet import misspelled_setting


@pytest.fixture(scope="module")
def bare_engine(tmp_path_factory):
    engine = Engine(tmp_path_factory.mktemp("snippets"), approval_mode="warn", preload=())
    yield engine
    engine.close()


@pytest.fixture
def engine(bare_engine):
    return new_build(bare_engine, "warn")


@pytest.fixture
def write(bare_engine):
    return snippet_writer(bare_engine.snippets_dir)


def failure(engine, rel: str) -> str:
    with pytest.raises(SnippetError) as caught:
        engine.run(rel)
    return str(caught.value)


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("# snipet: raises ValueError: bad", "# snippet: raises ValueError: bad"),
        ("# snippets: raises ValueError: bad", "# snippet: raises ValueError: bad"),
        ("#snippet raises ValueError: bad", "# snippet: raises ValueError: bad"),
    ],
)
def test_a_misspelled_raises_names_its_line_and_the_spelling_and_what_the_run_raised(engine, write, written, meant):
    write("page/typo.py", f"{written}\n\nx = 1\nraise ValueError('bad value')\n")
    message = failure(engine, "page/typo.py")
    assert message.startswith("snippets/page/typo.py:1: ")  # the typo's line, not the raise's
    assert f"'{written}' looks like a misspelled setting" in message
    assert f"write '{meant}'" in message
    assert "the run then failed: snippets/page/typo.py:4: raised an unexpected ValueError: bad value" in message
    assert message.count("misspelled") == 1 and "Traceback" not in message.splitlines()[0]


def test_a_misspelled_setting_fails_even_when_the_run_succeeds(engine, write):
    write("page/quiet.py", "# Snippet: timeout 60\nprint('fine')\n")
    message = failure(engine, "page/quiet.py")
    assert message == (
        "snippets/page/quiet.py:1: '# Snippet: timeout 60' looks like a misspelled setting, which the build"
        " does not read; write '# snippet: timeout 60'"
    )


def test_ordinary_comments_and_correct_settings_get_no_hint(engine, write):
    write(
        "page/fine.py",
        "# snippet: raises ValueError: bad\n# This snippet shows a ValueError.\n# Settings: none besides.\n"
        "raise ValueError('bad')\n# snipet: raises below the code is not a setting either\n",
    )
    assert engine.run("page/fine.py").error.type == "ValueError"
    assert misspelled_setting("# snapshot: of the weights\nx = 1\n") is None


def test_a_timeout_names_the_setting_that_raises_it(engine, write):
    write("page/slow.py", "# snippet: timeout 1\nwhile True:\n    pass\n")
    message = failure(engine, "page/slow.py")
    assert "timed out after 1 s, still running this line" in message
    assert "raise the limit with '# snippet: timeout 2' at the top of the file" in message
