"""Every example on the site, run fresh, prints exactly its approved output (doctest-style).

After upgrading torch, this is the test that lists what changed: each failure names the snippet
and shows a unified diff against its approved ``.out`` file.
"""

import pytest
from real_chapter import approved_output, chapter_snippets

from snippet_runner import SnippetError
from snippet_runner.checking import comparison as approved

# All of these read the outcomes of the session's one build of the chapter (the fresh_runs fixture).


@pytest.mark.parametrize("rel", chapter_snippets())
def test_snippet_prints_its_approved_output(rel, fresh_runs):
    result = fresh_runs[rel]
    if isinstance(result, SnippetError):
        pytest.fail(str(result), pytrace=False)
    # Strict mode already refused any difference; this reads the approved file itself, so a verdict
    # computed from the wrong file (or none) could not pass for a match.
    # issue 42: under another build of the same torch (+cu130) only the build it names may differ
    assert approved.release_only(result.output) == approved.release_only(approved_output(rel))
