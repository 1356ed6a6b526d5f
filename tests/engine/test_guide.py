"""The guide for another repository's chapter (dev/your-own-chapter.md) lists every plugin option and
every `# snippet:` setting as the code defines them, and the README links it."""

import dataclasses
from pathlib import Path

from devtools import guide_tables
from snippet_runner.plugins.runner.config import SnippetRunnerConfig
from snippet_runner.running import settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_guides_tables_are_what_the_code_defines():
    text = guide_tables.GUIDE.read_text(encoding="utf-8")
    assert guide_tables.rewritten(text) == text, "run `python -m devtools.guide_tables` and commit the guide"
    for name in SnippetRunnerConfig():
        assert f"| `{name}` |" in text
    for setting in settings.SETTINGS:
        assert f"| `# snippet: {setting.name}" in text
    assert "dev/your-own-chapter.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_changed_default_changes_the_table(monkeypatch):
    before = guide_tables.settings()
    changed = [dataclasses.replace(s, default=45.0) if s.name == "timeout" else s for s in settings.SETTINGS]
    monkeypatch.setattr(settings, "SETTINGS", tuple(changed))
    assert guide_tables.settings() != before and "| 45 s |" in guide_tables.settings()


def test_init_writes_a_starter_project_and_refuses_to_overwrite(tmp_path):
    import subprocess
    import sys

    import markdown
    from mkdocs.config import load_config

    from snippet_runner import starter
    from snippet_runner.project import Project

    def init():
        return subprocess.run(
            [sys.executable, "-m", "snippet_runner", "init"], cwd=tmp_path, capture_output=True, text=True
        )

    assert init().returncode == 0
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        starter.FILES
    )
    project = Project.load(tmp_path / "mkdocs.yml")
    assert list(project.shown()) == ["index/first_gradient.py"] and project.pdf is not None
    # math with no set-up: arithmatex's generic formulas, which the plugin gives its KaTeX to (reader_assets.py)
    config = load_config(str(tmp_path / "mkdocs.yml"))
    assert config.mdx_configs["pymdownx.arithmatex"] == {"generic": True}
    page = markdown.markdown(starter.FILES["docs/index.md"], extensions=["pymdownx.arithmatex"])
    assert 'class="arithmatex"' in page
    # the second chapter's test shows this .gitignore covers all a build writes
    assert starter.FILES[".gitignore"] == (ROOT / "tests/second_chapter/.gitignore").read_text(encoding="utf-8")
    (tmp_path / "docs/index.md").write_text("mine\n")
    again = init()
    assert again.returncode == 1 and "mkdocs.yml, docs/index.md" in again.stderr
    assert (tmp_path / "docs/index.md").read_text() == "mine\n"


def test_serve_help_lists_its_options():
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "snippet_runner", "serve", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0 and "--dev-addr" in done.stdout and "--strict" in done.stdout
