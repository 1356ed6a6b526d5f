"""Every example on the site, run fresh, prints exactly its approved output (doctest-style).

After upgrading torch, this is the test that lists what changed: each failure names the snippet
and shows a unified diff against its approved ``.out`` file.
"""

import pytest

from chapter import SNIPPETS, chapter_snippets
from snippet_runner import Engine, SnippetError


@pytest.mark.parametrize("rel", chapter_snippets())
def test_snippet_prints_its_approved_output(rel, fresh_runs):
    result = fresh_runs[rel]
    if isinstance(result, SnippetError):
        pytest.fail(str(result), pytrace=False)
    assert result.verdict.approved


def test_a_changed_input_is_caught(tmp_path):
    """Copy a real snippet with its approved output, change its input, and check the same way."""
    source = (SNIPPETS / "chain_rule" / "autograd_check.py").read_text()
    approved = (SNIPPETS / "chain_rule" / "autograd_check.out").read_text()
    assert approved == "tensor(60.)\n"
    folder = tmp_path / "chain_rule"
    folder.mkdir()
    (folder / "autograd_check.py").write_text(source.replace("torch.tensor(2.0", "torch.tensor(3.0"))
    (folder / "autograd_check.out").write_text(approved)
    engine = Engine(tmp_path, cache_dir=None, approval_mode="strict")
    try:
        with pytest.raises(SnippetError) as caught:
            engine.run("chain_rule/autograd_check.py")
    finally:
        engine.close()
    assert "output differs from the approved snippets/chain_rule/autograd_check.out" in str(caught.value)
    assert "-tensor(60.)\n+tensor(78.)" in caught.value.detail
