"""`make bench` runs on a copy of the project; its scale mode works end to end (no times asserted)."""

from real_chapter import ROOT

from devtools import bench
from devtools.scratch import ScratchProject


def test_the_copy_holds_everything_a_build_reads_and_no_caches(tmp_path):
    project = ScratchProject.copy_of(ROOT, tmp_path).root
    for needed in ("mkdocs.yml", "docs/index.md", "snippets/chain_rule/autograd_check.py", "overrides"):
        assert (project / needed).exists(), needed
    for skipped in (".git", ".venv", "node_modules", ".cache", "site"):
        assert not (project / skipped).exists(), skipped


def test_scale_mode_runs_generated_snippets_and_reports_overhead(capsys):
    bench.scale(pages=2, per_page=3)
    report = capsys.readouterr().out
    assert "scale: 6 snippets over 2 pages" in report
    assert "overhead/snippet (ms)" in report


def test_snippet_time_measures_the_build_and_one_process_side_by_side(tmp_path):
    from devtools import snippet_time

    project = ScratchProject.minimal(tmp_path)
    project.write("snippets/page/hello.py", "import time\n\ntime.sleep(0.05)\nprint('hello')\n")
    times = snippet_time.side_by_side(project.root, repeat=1)
    assert times.snippets == 1
    assert min(times.warmed, times.cold_forks, times.one_process) >= 0.05  # each ran the snippet
