"""``make site`` starts the snippets' worker before MkDocs loads (``Project.start_early``), so that a
cold build's torch import overlaps MkDocs reading its settings; the plugin's engine is that one."""

from __future__ import annotations

import json

# Runs `make site` in this process, counting the workers started and how many there were when the
# plugin's on_config began; prints both as JSON on its last line.
COUNT_WORKERS = r"""
import json
from snippet_runner.running import pool
from snippet_runner.plugins.runner import plugin

started = []
spawn = pool._Process.__init__
def counted(self, *args, **kwargs):
    started.append(1)
    return spawn(self, *args, **kwargs)
pool._Process.__init__ = counted

at_config = []
on_config = plugin.SnippetRunnerPlugin.on_config
def seen(self, config):
    at_config.append(len(started))
    return on_config(self, config)
plugin.SnippetRunnerPlugin.on_config = seen

from snippet_runner.__main__ import main
code = main(["site", "--force"])
print(json.dumps({"code": code, "started": len(started), "at_config": at_config}))
"""


def _workers(scratch) -> dict:
    code, out, err = scratch.run_split("-c", COUNT_WORKERS)
    assert code == 0, err
    return json.loads(out.splitlines()[-1])


def test_a_cold_build_starts_its_one_worker_before_mkdocs_reads_its_settings(scratch):
    counted = _workers(scratch)
    assert counted == {"code": 0, "started": 1, "at_config": [1]}


def test_a_build_with_every_result_cached_starts_no_worker(scratch):
    assert _workers(scratch)["started"] == 1
    assert _workers(scratch) == {"code": 0, "started": 0, "at_config": [0]}


def test_what_the_early_reading_logs_is_shown_by_mkdocs(scratch):
    """The engine logs before MkDocs has set up its logging; it is held back and shown after."""
    assert scratch.build()[0] == 0
    for entry in (scratch.root / ".cache" / "snippets").rglob("*.json"):
        entry.write_text("{")
    code, log = scratch.build(force=True)
    assert code == 0, log
    assert log.count("discarded an unreadable cache entry for page/hello.py") == 1
    assert "INFO    -  discarded an unreadable cache entry" in log  # MkDocs' format: shown by its logging
