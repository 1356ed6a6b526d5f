"""The pages expand under any Python-Markdown builder, not only under MkDocs with our plugin:
a plain ``markdown.markdown`` call, and ProperDocs (the maintained fork of MkDocs 1.6) building
the same ``mkdocs.yml``."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import markdown
from real_chapter import DOCS, ROOT

from snippet_runner.markdown.extension import RunExtension
from snippet_runner.running.snippet import SETTING

PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)


def code_blocks(rendered: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in PRE.findall(rendered)]


def test_plain_python_markdown_expands_a_chapter_page():
    page = (DOCS / "chain-rule.md").read_text(encoding="utf-8")
    approved = (ROOT / "snippets" / "chain_rule" / "autograd_check.out").read_text(encoding="utf-8")
    code = (ROOT / "snippets" / "chain_rule" / "autograd_check.py").read_text(encoding="utf-8")
    # no plugin here: the extension loads mkdocs.yml and starts its own engine, closed at exit
    rendered = markdown.markdown(
        page,
        extensions=[
            "attr_list",
            "pymdownx.superfences",
            RunExtension(config_file=str(ROOT / "mkdocs.yml"), page="docs/chain-rule.md"),
        ],
    )
    assert "{{ run" not in rendered
    blocks = code_blocks(rendered)
    shown = "".join(line for line in code.splitlines(keepends=True) if not SETTING.match(line.strip()))
    assert shown.strip() in [block.strip() for block in blocks]  # the listing, its settings hidden
    assert approved.strip() in [block.strip() for block in blocks]


def test_properdocs_builds_the_site_with_real_outputs(tmp_path, session_build):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=session_build.environment(),  # the snippets' results from the session's build: only the builder differs
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = (site / "chain-rule.html").read_text(encoding="utf-8")
    approved = (ROOT / "snippets" / "chain_rule" / "autograd_check.out").read_text(encoding="utf-8").strip()
    outputs = re.findall(r'<div class="snippet-output[^"]*">(.*?)</div>', page, re.S)
    assert any(approved in html.unescape(re.sub(r"<[^>]+>", "", block)) for block in outputs)
