"""The cache: nothing changed runs nothing; one edit re-runs one snippet; the key covers its inputs."""

import pytest

from snippet_runner import Engine, cache


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
    from snippet_runner import spec

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

    assert key_with(**{"snippet_runner.cache.platform.python_version": lambda: "3.99.0"}) != original
    assert key_with(**{"snippet_runner.cache.metadata.version": lambda name: "9.9.9"}) != original
    assert key_with() == original


def test_key_covers_every_engine_source_file_even_a_new_one(tmp_path):
    """Nothing lists the engine's modules by hand: a module added to the package changes the key."""
    import shutil

    package = tmp_path / "package"
    shutil.copytree(cache.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = cache.environment_fingerprint(("torch",), package)
    (package / "brand_new_module.py").write_text("VALUE = 1\n")
    after_new = cache.environment_fingerprint.__wrapped__(("torch",), package)
    (package / "brand_new_module.py").write_text("VALUE = 2\n")
    after_edit = cache.environment_fingerprint.__wrapped__(("torch",), package)
    assert len({before, after_new, after_edit}) == 3


def test_a_truncated_or_foreign_cache_entry_is_run_again(project, tmp_path):
    project()
    for entry in (tmp_path / "cache").rglob("*.json"):
        entry.write_text(entry.read_text()[:20])  # truncated mid-write, or from another engine
    assert project()[0] == {"page/a.py": False, "page/b.py": False}
