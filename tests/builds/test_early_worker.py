"""``make site`` starts the snippets' worker before MkDocs loads (``Project.start_early``), so that a
cold build's torch import overlaps MkDocs reading its settings; the plugin's engine is that one."""

from __future__ import annotations

import json

# Runs `make site` in this process, counting the workers started, how many there were when MkDocs'
# settings were first read (Project.load) and when the plugin's on_config began, and how many of
# them were still running then; prints these as JSON on its last line, with the scratch folders of
# the workers that are left after the build.
COUNT_WORKERS = r"""
import json, os
from snippet_runner.project import Project
from snippet_runner.running import pool
from snippet_runner.plugins.runner import plugin

started = []
spawn = pool._Process.__init__
def counted(self, *args, **kwargs):
    started.append(self)
    return spawn(self, *args, **kwargs)
pool._Process.__init__ = counted

at_load = []
load = Project.load.__func__
Project.load = classmethod(lambda cls, *a, **k: at_load.append(len(started)) or load(cls, *a, **k))

at_config, alive = [], []
on_config = plugin.SnippetRunnerPlugin.on_config
def seen(self, config):
    at_config.append(len(started))
    alive.append(sum(process.proc.poll() is None for process in started))
    return on_config(self, config)
plugin.SnippetRunnerPlugin.on_config = seen

from snippet_runner.__main__ import main
code = main(["site", "--force"])
left = [p.dump_path for p in started if os.path.exists(os.path.dirname(p.dump_path))]
print(json.dumps({"code": code, "started": len(started), "at_load": at_load[:1], "at_config": at_config,
                  "alive": alive, "left": left}))
"""


def _workers(scratch) -> dict:
    code, out, err = scratch.run_split("-c", COUNT_WORKERS)
    assert code == 0, err
    return json.loads(out.splitlines()[-1])


def test_a_cold_build_starts_its_one_worker_before_mkdocs_reads_its_settings(scratch):
    """Before MkDocs' settings are read at all: mkdocs.yml's own snippet cache is empty, so the
    worker is started ahead (pool.start_ahead), with the preloads it names (none here), and taken."""
    counted = _workers(scratch)
    assert counted == {"code": 0, "started": 1, "at_load": [1], "at_config": [1], "alive": [1], "left": []}


def test_a_build_with_every_result_cached_starts_no_worker(scratch):
    assert _workers(scratch)["started"] == 1
    assert _workers(scratch) == {"code": 0, "started": 0, "at_load": [0], "at_config": [0], "alive": [0], "left": []}


def test_a_worker_started_ahead_that_the_build_does_not_need_is_stopped_before_mkdocs_runs(scratch):
    """A wrong guess: the last build's snippet cache is gone, but the settings now name another one
    that holds every result. The worker started ahead is stopped once the build has checked its
    snippets, before MkDocs' plugins run, and its folder goes with it."""
    assert _workers(scratch)["started"] == 1
    (scratch.root / ".cache" / "snippets").rename(scratch.root / ".cache" / "moved")
    config = scratch.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("preload: []", "preload: []\n      cache_dir: .cache/moved"))
    assert _workers(scratch) == {"code": 0, "started": 1, "at_load": [1], "at_config": [1], "alive": [0], "left": []}


def test_what_the_early_reading_logs_is_shown_by_mkdocs(scratch):
    """The engine logs before MkDocs has set up its logging; it is held back and shown after."""
    assert scratch.build()[0] == 0
    for entry in (scratch.root / ".cache" / "snippets").rglob("*.json"):
        entry.write_text("{")
    code, log = scratch.build(force=True)
    assert code == 0, log
    assert log.count("discarded an unreadable cache entry for page/hello.py") == 1
    assert "INFO    -  discarded an unreadable cache entry" in log  # MkDocs' format: shown by its logging


def test_the_guess_reads_mkdocs_yml_as_mkdocs_would_when_no_build_was_recorded(tmp_path, monkeypatch):
    """``!ENV`` resolved, the theme's Python tags read as nothing, the preloads as written; no
    worker where the cache named holds a result, or where nothing is to run."""
    from snippet_runner.site import skip

    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\ntheme:\n  name: material\n  icon: !!python/name:no.such.module\n"
        "plugins:\n  - snippet-runner:\n      cache_dir: !ENV [THE_CACHE, .cache/snippets]\n      preload: [torch, numpy]\n"
    )
    monkeypatch.setenv("THE_CACHE", "elsewhere")
    assert skip.worker_to_start_ahead(config, tmp_path / "site") == ("torch", "numpy")
    (tmp_path / ".cache" / "snippets" / "ab").mkdir(parents=True)  # not the folder the setting names
    assert skip.worker_to_start_ahead(config, tmp_path / "site") == ("torch", "numpy")
    (tmp_path / "elsewhere" / "ab").mkdir(parents=True)
    assert skip.worker_to_start_ahead(config, tmp_path / "site") is None
    monkeypatch.setenv("THE_CACHE", "empty")
    monkeypatch.setenv("SNIPPETS_EXECUTE", "0")
    assert skip.worker_to_start_ahead(config, tmp_path / "site") is None
    monkeypatch.delenv("SNIPPETS_EXECUTE")
    config.write_text(config.read_text() + "      execute: false\n")
    assert skip.worker_to_start_ahead(config, tmp_path / "site") is None
