"""`make drift`: records of the chapter under another torch, and the pages built from them.

No torch is downloaded here. The "other torch" is this very interpreter with an environment variable
set, which the throwaway project's examples print: the drift machinery sees real differences, new
errors and changed error messages, exactly as it would under another release.
"""

import json
import os
import shlex
import shutil
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from devtools.scratch import ScratchProject
from snippet_runner import __version__
from snippet_runner.drift import check as drift

FAKE = "DRIFT_TEST_FAKE_TORCH"  # set: the examples behave as if under another torch

CONFIG = """
site_name: fixture
theme: mkdocs
strict: true
nav:
  - Home: index.md
  - Which PyTorch: which-pytorch.md
  - Other: other.md
plugins:
  - snippet-runner:
      preload: []
  - snippet-drift
markdown_extensions:
  - admonition  # the report's stale warning, as on the real site
"""

FILES = {
    "docs/index.md": "# Home\n\n{{ run page/hello.py }}\n",
    "docs/which-pytorch.md": "# Which PyTorch\n\nWhich release holds.\n\n<!-- drift-report -->\n",
    "docs/other.md": "# Other\n\n{{ run other/env.py }}\n\n{{ run other/boom.py }}\n\n{{ run other/sometimes.py }}\n",
    "snippets/page/hello.py": "print('hello')\n",
    "snippets/page/hello.out": "hello\n",
    # prints which "torch" it runs under: differs
    "snippets/other/env.py": f"import os\nprint('version', os.environ.get('{FAKE}', 'pinned'))\n",
    "snippets/other/env.out": "version pinned\n",
    # a declared error whose message changes
    "snippets/other/boom.py": (
        "# snippet: raises RuntimeError: boom\n"
        f"import os\nraise RuntimeError('boom under ' + os.environ.get('{FAKE}', 'pinned'))\n"
    ),
    # an error that did not happen before
    "snippets/other/sometimes.py": (
        f"import os\nif os.environ.get('{FAKE}'):\n    raise ValueError('removed in this release')\nprint('fine')\n"
    ),
    "snippets/other/sometimes.out": "fine\n",
}


@pytest.fixture(scope="module")
def accepted(tmp_path_factory) -> Path:
    """The files above, with boom.py's real output (its traceback) approved, as `make accept`
    would: made once per module (and worker), then copied for each test."""
    project = ScratchProject(tmp_path_factory.mktemp("drift") / "project")
    for rel, text in {**FILES, "mkdocs.yml": CONFIG}.items():
        project.write(rel, text)
    code, log = project.accept("other/boom.py")
    assert code == 0, log
    return project.root


def copy_of(root: Path, into: Path) -> ScratchProject:
    """A fresh copy of a throwaway project (devtools/scratch.py), for one test."""
    project = ScratchProject(shutil.copytree(root, into / "project", symlinks=True))
    project.html = lambda page: (project.root / "site" / page).read_text()
    return project


@pytest.fixture
def project(accepted, tmp_path):
    return copy_of(accepted, tmp_path)


@pytest.fixture(scope="module")
def recorded_9_9_9(accepted, tmp_path_factory) -> Path:
    """The accepted project with the record of a `make drift` under "torch 9.9.9" (this interpreter,
    the examples told so), made once per module (and worker): most tests below start from it. The
    record is the same bytes on every run (test_rerunning_one_version_replaces_only_its_own_record)."""
    project = copy_of(accepted, tmp_path_factory.mktemp("drift-9.9.9"))
    record_fake(project, "9.9.9")
    return project.root


@pytest.fixture
def recorded(recorded_9_9_9, tmp_path):
    """A fresh copy of the project with its 9.9.9 record, for one test."""
    return copy_of(recorded_9_9_9, tmp_path)


def record_of(project, label="9.9.9") -> dict:
    return json.loads((project.root / "drift" / f"torch-{label}.json").read_text())


def record_fake(project, label="9.9.9", **env):
    """`make drift` with this interpreter as the other torch; returns the record written. The worker
    never sees the build's environment (an allowlist), so "another torch" is an interpreter of its
    own: a wrapper that sets the variables the examples read, then runs this Python."""
    wrapper = project.root.parent / f"python-{label}"
    exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in {FAKE: label, **env}.items())
    wrapper.write_text(f'#!/bin/sh\n{exports}exec {shlex.quote(sys.executable)} "$@"\n')
    wrapper.chmod(0o755)
    code, log = project.run("-m", "snippet_runner.drift", label, "--python", str(wrapper))
    assert code == 0, log
    return json.loads((project.root / "drift" / f"torch-{label}.json").read_text())


def test_each_example_is_classed_against_its_approved_output(recorded):
    data = record_of(recorded)
    results = {rel: entry["result"] for rel, entry in data["snippets"].items()}
    assert results == {
        "page/hello.py": "identical",
        "other/env.py": "differs",
        "other/boom.py": "error-changed",
        "other/sometimes.py": "new-error",
    }
    entries = data["snippets"]
    assert entries["other/env.py"]["diff"][-2:] == ["-version pinned", "+version 9.9.9"]
    assert entries["other/boom.py"]["message"] == "RuntimeError: boom under 9.9.9"
    assert "raised an unexpected ValueError: removed in this release" in entries["other/sometimes.py"]["message"]
    assert data["summary"] == {"identical": 1, "differs": 1, "error-changed": 1, "new-error": 1}
    assert data["engine"] == __version__ and data["torch"] == "9.9.9"


def test_the_same_environment_records_everything_identical(project):
    """The machinery invents no difference: the pinned environment itself is all identical."""
    code, log = project.run("-m", "snippet_runner.drift", "0.0.1", "--python", sys.executable)
    assert code == 0, log
    data = json.loads((project.root / "drift" / "torch-0.0.1.json").read_text())
    assert {e["result"] for e in data["snippets"].values()} == {"identical"}


def test_a_declared_error_that_no_longer_happens_is_a_changed_error_and_one_that_now_hangs_a_new_error(project):
    """Two declared errors in one record: boom.py no longer raises under the other torch, and a
    second example, hangs.py, now loops until its timeout (these were two tests, each with its own
    accept and record: test_a_declared_error_snippet_that_now_hangs_is_a_new_error the second)."""
    (project.root / "snippets/other/boom.py").write_text(
        "# snippet: raises RuntimeError: boom\n"
        f"import os\nif not os.environ.get('{FAKE}'):\n    raise RuntimeError('boom')\n"
    )
    (project.root / "snippets/other/hangs.py").write_text(
        "# snippet: raises RuntimeError: boom\n# snippet: timeout 1\n"
        f"import os\nwhile os.environ.get('{FAKE}'): pass\nraise RuntimeError('boom')\n"
    )
    other = project.root / "docs/other.md"
    other.write_text(other.read_text() + "\n{{ run other/hangs.py }}\n")
    project.accept("other/boom.py", "other/hangs.py")
    entries = record_fake(project)["snippets"]
    assert entries["other/boom.py"]["result"] == "error-changed"
    assert (
        "declared to raise RuntimeError: boom but finished without an exception" in entries["other/boom.py"]["message"]
    )
    assert entries["other/hangs.py"]["result"] == "new-error"
    assert entries["other/hangs.py"]["message"].startswith("timed out after 1 s")


def test_rerunning_one_version_replaces_only_its_own_record(recorded):
    project = recorded
    record_fake(project, "8.8.8")
    other = (project.root / "drift" / "torch-8.8.8.json").read_bytes()
    first = (project.root / "drift" / "torch-9.9.9.json").read_bytes()
    record_fake(project, "9.9.9")
    assert (project.root / "drift" / "torch-9.9.9.json").read_bytes() == first  # the same run, the same bytes
    assert (project.root / "drift" / "torch-8.8.8.json").read_bytes() == other
    assert sorted(p.name for p in (project.root / "drift").iterdir()) == ["torch-8.8.8.json", "torch-9.9.9.json"]


def test_the_page_shows_what_differs_and_each_page_names_where_it_holds(recorded):
    project = recorded
    code, log = project.build()
    assert code == 0, log
    report = project.html("which-pytorch/index.html")
    assert "PyTorch 9.9.9" in report and "1 of 4" in report  # identical
    assert "version 9.9.9" in report  # the diff itself
    assert "RuntimeError: boom under 9.9.9" in report and "removed in this release" in report
    assert 'href="#torch-9-9-9-other-env"' in report and 'id="torch-9-9-9-other-env"' in report
    assert 'href="../other/"' in report  # the example's page
    home = project.html("index.html")
    assert "Outputs on this page printed by PyTorch" in home and "identical under 9.9.9." in home
    other = project.html("other/index.html")
    assert "torch-line" in other and "identical under" not in other and "some differ under 9.9.9." in other


def test_a_version_that_cannot_be_installed_stops_with_one_message_and_leaves_records_alone(recorded, tmp_path):
    project = recorded
    before = (project.root / "drift" / "torch-9.9.9.json").read_bytes()
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    # pip, offline: no index, an empty folder of wheels, and no machine-wide configuration
    env = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(empty)}
    code, _, stderr = project.run_split("-m", "snippet_runner.drift", "9.9.9", **env)
    assert code == 2
    errors = [line for line in stderr.splitlines() if line.strip()]
    assert len(errors) == 1, stderr
    assert errors[0].startswith("drift: cannot install torch==9.9.9: No matching distribution found for torch==9.9.9")
    assert "No record was written" in errors[0]
    assert (project.root / "drift" / "torch-9.9.9.json").read_bytes() == before
    assert not (project.root / ".cache" / "drift" / "venv-9.9.9").exists()  # nothing half-made is reused


def test_a_machine_wide_cap_on_torch_is_named_with_the_way_around_it():
    """What pip printed here, asking for 2.15.0 under this machine's configuration (torch<=2.14.1)."""
    pip_output = textwrap.dedent("""
        ERROR: Cannot install torch==2.15.0 because these package versions have conflicting dependencies.

        The conflict is caused by:
            The user requested torch==2.15.0
            The user requested (constraint) torch<=2.14.1

        ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/
    """)
    message = drift._install_failure("2.15.0", pip_output, "pip-2.15.0.log")
    assert message.startswith(
        "cannot install torch==2.15.0: pip's configuration caps it (The user requested (constraint) torch<=2.14.1;"
    )
    assert "PIP_CONFIG_FILE=/dev/null python -m snippet_runner.drift 2.15.0" in message and "\n" not in message


def test_a_version_that_is_not_a_release_number_is_refused(project):
    code, _, stderr = project.run_split("-m", "snippet_runner.drift", "latest")
    assert code == 2
    assert stderr.strip() == "drift: TORCH must be a release number such as 2.15.0, not 'latest'"


def _rewrite(path, change):
    data = json.loads(path.read_text())
    change(data)
    data["checksum"] = drift.checksum(data)
    path.write_text(json.dumps(data, indent=1))


BAD_RECORDS = {
    "corrupt": (
        lambda p: p.write_text(p.read_text()[:-40]),
        "drift/torch-9.9.9.json: drift record is not valid JSON",
    ),
    "edited by hand": (
        lambda p: p.write_text(p.read_text().replace('"result": "differs"', '"result": "identical"')),
        "drift/torch-9.9.9.json: drift record was edited by hand or is damaged",
    ),
    "snippet gone": (
        lambda p: _rewrite(p, lambda d: d["snippets"].update({"page/gone.py": {"result": "identical"}})),
        "drift/torch-9.9.9.json: records snippets/page/gone.py, which the site no longer runs",
    ),
    "other format": (
        lambda p: _rewrite(p, lambda d: d.update(format=99)),
        "drift/torch-9.9.9.json: not a drift record of format 1",
    ),
    "misnamed": (
        lambda p: p.rename(p.with_name("torch-9.9.8.json")),
        "drift/torch-9.9.8.json: holds a record for torch 9.9.9",
    ),
}


@pytest.mark.parametrize("case", list(BAD_RECORDS))
def test_a_bad_record_fails_the_build_with_one_message_naming_it(recorded, case):
    project = recorded
    spoil, expected = BAD_RECORDS[case]
    spoil(project.root / "drift" / "torch-9.9.9.json")
    code, log = project.build()
    assert code != 0
    errors = [line for line in log.splitlines() if line.startswith(("ERROR", "Error"))]
    assert len(errors) == 1, log
    assert expected in errors[0]
    assert not (project.root / "site").exists()


def test_a_record_written_by_another_package_version_still_loads(recorded):
    """Records carry a format of their own: a new release of the package reads what an older wrote."""
    path = recorded.root / "drift" / "torch-9.9.9.json"
    _rewrite(path, lambda d: d.update(engine="0.0.9"))
    (record,) = [r for r in drift.load_records(recorded.root) if r.torch == "9.9.9"]
    assert record.data["engine"] == "0.0.9"


def test_a_snippet_removed_from_the_site_makes_its_record_bad(recorded):
    project = recorded
    (project.root / "docs/other.md").write_text("# Other\n\n{{ run other/env.py }}\n\n{{ run other/boom.py }}\n")
    code, log = project.build()
    assert code != 0
    assert "drift/torch-9.9.9.json: records snippets/other/sometimes.py, which the site no longer runs" in log


def test_a_record_older_than_the_approved_output_is_marked_stale(recorded):
    project = recorded
    (project.root / "snippets/page/hello.py").write_text("print('hello again')\n")
    (project.root / "snippets/page/hello.out").write_text("hello again\n")
    code, log = project.build()
    assert code == 0, log
    report = project.html("which-pytorch/index.html")
    assert "Stale: 1 result is not current" in report
    assert "<code>snippets/page/hello.py</code> (stale)" in report
    assert "0 of 4" in report  # hello.py's old "identical" no longer counts
    home = project.html("index.html")
    assert "identical under 9.9.9" not in home and "not checked again yet under 9.9.9." in home


def test_an_example_added_after_the_record_is_not_claimed(recorded):
    project = recorded
    (project.root / "snippets/page/new.py").write_text("print('new')\n")
    (project.root / "snippets/page/new.out").write_text("new\n")
    (project.root / "docs/index.md").write_text("# Home\n\n{{ run page/hello.py }}\n\n{{ run page/new.py }}\n")
    code, log = project.build()
    assert code == 0, log
    assert "(new since this check)" in project.html("which-pytorch/index.html")
    assert "identical under 9.9.9" not in project.html("index.html")


def test_the_worker_runs_under_the_interpreter_it_is_given(write_snippet, tmp_path):
    """Engine(python=...) starts its worker under that interpreter, which imports the engine itself."""
    from snippet_runner import Engine

    write_snippet("page/which.py", "import sys\nprint(sys.executable)\n")
    fake = tmp_path / "bin" / "python-other"
    fake.parent.mkdir()
    fake.symlink_to(sys.executable)
    engine = Engine(write_snippet.snippets, approval_mode="warn", preload=(), python=str(fake))
    try:
        assert engine.run("page/which.py").output == f"{fake}\n"
    finally:
        engine.close()
    with pytest.raises(ValueError):
        Engine(write_snippet.snippets, tmp_path / "cache", python=str(fake))


@pytest.mark.skipif(
    "+cpu" not in metadata.version("torch"),
    reason="about the CPU build (+cpu), whose version the probe reads from its metadata",
)
def test_a_cpu_build_is_read_from_its_metadata_and_torch_is_imported_only_to_check_an_install(tmp_path):
    """The record's probe takes a ``+cpu`` build's version from its metadata (no CUDA there), so a
    drift run imports torch once, in its worker; the probe after an install imports it, to see that
    it does. Here torch is shadowed by a module that refuses to be imported."""
    import platform

    from snippet_runner.drift import check

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "torch.py").write_text("raise ImportError('imported')\n")
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(shadow))} exec {shlex.quote(sys.executable)} "$@"\n')
    wrapper.chmod(0o755)
    read = check._probe(str(wrapper), load=False)
    assert read == {"python": platform.python_version(), "torch": metadata.version("torch"), "cuda_available": False}
    assert check._probe(str(wrapper))["error"] == "ImportError: imported"


def test_the_report_links_an_example_shown_on_two_pages_to_the_first(tmp_path):
    from snippet_runner.plugins.drift.plugin import report

    data = {"torch": "9.9.9", "torch_build": "9.9.9", "python": "3.11", "cuda_available": False}
    data |= {"compared_with": "2.0", "snippets": {"a/x.py": {"result": "differs", "diff": ["-1", "+2"]}}}
    pages = {"first.md": ["a/x.py"], "second.md": ["a/x.py"]}
    text = report([drift.Record(tmp_path / "r.json", data)], "2.0", pages, {"first.md": "First"}, "which.md")
    assert "| `a/x.py` | [First](first.md) |" in text
