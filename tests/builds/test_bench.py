"""`make bench` runs on a copy of the project; its scale mode works end to end (no times asserted)."""

import subprocess

import pytest
from real_chapter import ROOT

from devtools import bench
from devtools.scratch import ScratchProject


def test_the_copy_holds_everything_a_build_reads_and_no_caches(tmp_path):
    project = ScratchProject.copy_of(ROOT, tmp_path).root
    for needed in ("mkdocs.yml", "docs/index.md", "snippets/chain_rule/autograd_check.py", "overrides"):
        assert (project / needed).exists(), needed
    for skipped in (".git", ".venv", ".cache", "site"):
        assert not (project / skipped).exists(), skipped
    # the npm packages the build lays its graphs out with are linked, not copied
    assert (project / "node_modules").is_symlink()
    assert (project / "node_modules").resolve() == (ROOT / "node_modules").resolve()
    # every file the repository tracks is there (docs/assets/site.css was once left out)
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    missing = [rel for rel in tracked.splitlines() if (ROOT / rel).is_file() and not (project / rel).is_file()]
    assert missing == []


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


def test_the_developers_table_is_rewritten_from_the_run_between_its_markers(tmp_path):
    import argparse

    page = tmp_path / "measurements.md"
    page.write_text(f"# Costs\n\n{bench.START}\nold figures\n{bench.END}\n\n## Notes\nkept\n")
    bench.record(page, "(a) plain Material build  0.77 s\n", argparse.Namespace(repeat=1, scale=False))
    text = page.read_text()
    assert "old figures" not in text and "(a) plain Material build  0.77 s" in text
    assert "`make bench --repeat 1`" in text and text.endswith("## Notes\nkept\n")
    page.write_text("# Costs, without the markers\n")
    with pytest.raises(SystemExit, match="no '<!-- make bench: start -->'"):
        bench.record(page, "x\n", argparse.Namespace())
    assert (ROOT / bench.RECORD).read_text().count(bench.START) == 1
