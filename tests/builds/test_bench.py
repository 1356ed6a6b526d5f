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
