"""The cache: nothing changed runs nothing; one edit re-runs one snippet; the key covers its inputs."""

import pytest

from snippet_runner import Engine
from snippet_runner.checking import cache


@pytest.fixture
def project(write_snippet, tmp_path):
    write_snippet("page/a.out", "a\n")
    write_snippet("page/b.out", "b\n")
    write_snippet("page/a.py", "import helper\nprint(helper.VALUE)\n")
    write_snippet("page/helper.py", "VALUE = 'a'\n")
    write_snippet("page/b.py", "print('b')\n")

    def build():
        # warn: an output edited below is shown, not fatal; only approved outputs are cached
        engine = Engine(write_snippet.snippets, tmp_path / "cache", approval_mode="warn", preload=())
        try:
            for rel in ("page/a.py", "page/b.py"):
                engine.run(rel)
            return {r.rel: r.cached for r in engine.records}, engine.runner.workers_started
        finally:
            engine.close()

    return build


def test_unchanged_build_runs_nothing_and_starts_no_worker(project):
    assert project() == ({"page/a.py": False, "page/b.py": False}, 1)
    assert project() == ({"page/a.py": True, "page/b.py": True}, 0)


def test_editing_one_snippet_reruns_only_it(project, write_snippet):
    project()
    write_snippet("page/b.py", "print('b')  # edited\n")
    assert project()[0] == {"page/a.py": True, "page/b.py": False}


def test_an_unapproved_output_is_never_cached(project, write_snippet):
    project()
    write_snippet("page/b.py", "print('b, edited')\n")
    assert project()[0] == {"page/a.py": True, "page/b.py": False}
    assert project()[0] == {"page/a.py": True, "page/b.py": False}  # ran again: nothing was stored


def test_editing_a_local_module_reruns_its_importer(project, write_snippet):
    project()
    write_snippet("page/helper.py", "VALUE = 'a'  # changed\n")
    assert project()[0] == {"page/a.py": False, "page/b.py": True}


def test_key_covers_python_torch_and_engine_versions(write_snippet, monkeypatch):
    from snippet_runner.running import snippet as spec

    write_snippet("page/b.py", "print('b')\n")
    snippet = spec.load(write_snippet.snippets, "page/b.py")
    original = cache.key_for(snippet, ("torch",))

    def key_with(**patches):
        cache.environment_fingerprint.cache_clear()
        with monkeypatch.context() as m:
            for target, value in patches.items():
                m.setattr(target, value)
            key = cache.key_for(snippet, ("torch",))
        cache.environment_fingerprint.cache_clear()
        return key

    assert key_with(**{"snippet_runner.checking.cache.platform.python_version": lambda: "3.99.0"}) != original
    assert key_with(**{"snippet_runner.machine.metadata.version": lambda name: "9.9.9"}) != original
    assert key_with() == original


def test_key_covers_the_code_that_runs_a_snippet_even_a_new_module_and_nothing_else(tmp_path):
    """Nothing lists the running modules by hand: a module added beside the worker changes the key, as
    does an edit to the picture recorder; an edit to code that only reads results (the drawing, the
    Markdown layer, the site and the PDF, drift) changes nothing, so it re-runs no snippet."""
    import shutil

    package = tmp_path / "package"
    shutil.copytree(cache.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))

    def key() -> str:
        return cache.environment_fingerprint.__wrapped__(("torch",), package)

    before = key()
    (package / "running" / "brand_new_module.py").write_text("VALUE = 1\n")
    after_new = key()
    (package / "running" / "brand_new_module.py").write_text("VALUE = 2\n")
    after_edit = key()
    with (package / "pictures" / "record.py").open("a") as f:
        f.write("# an edit\n")
    after_recorder = key()
    assert len({before, after_new, after_edit, after_recorder}) == 4
    for reader in (
        "pictures/draw.py",
        "markdown/run_lines.py",
        "site/pdf.py",
        "drift/check.py",
        "plugins/runner/plugin.py",
    ):
        with (package / reader).open("a") as f:
            f.write("# an edit\n")
        assert key() == after_recorder, reader


def test_a_truncated_or_foreign_cache_entry_is_run_again(project, tmp_path):
    project()
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text(entry.read_text()[:20])  # truncated mid-write, or from another engine
    assert project()[0] == {"page/a.py": False, "page/b.py": False}
