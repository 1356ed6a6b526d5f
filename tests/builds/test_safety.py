"""Safe execution, tested the way a hostile or careless pull request would meet it: each bad input is
made to happen in a real `make site` (`python -m snippet_runner site`) on a throwaway project, and
every outcome is checked the same way:

* one clear message naming the page and the snippet's file:line;
* the previous ``site/`` intact;
* nothing written outside the project;
* no process left running.

Most cases share one build, one page each: that build must also report every failure, in page
order, in one run. Cases that stop a build before any page runs (settings, the preload) or that
must pass (leftovers that may not change the next snippet) have builds of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from devtools.scratch import ENV, site_build_running_a_snippet

# A write from C code (libc's open), which Python's audit hook does not see.
_C_OPEN = "import ctypes\nimport os\n\nlibc = ctypes.CDLL(None, use_errno=True)\n"
_REFUSED = (
    "if fd < 0:\n"
    "    raise PermissionError(ctypes.get_errno(), 'the kernel refused the write: ' + os.strerror(ctypes.get_errno()))\n"
    "print('written')\n"
)
DEV_PROBE = "/dev/snippet-runner-probe"

# Each case: its page (docs/<name>.md) includes snippets/<name>/bad.py. (code, expected message)
BROKEN = {
    "traversal": (
        None,  # the page itself is the bad input, see below
        "docs/traversal.md:3: snippets/../../evil.py:1: '../../evil.py' resolves to",
    ),
    "symlink_out": (None, "an include must name a file inside snippets/"),
    "writes_a_page": (
        "from pathlib import Path\nPath('../../docs/index.md').write_text('defaced')\n",
        "docs/writes_a_page.md:3: snippets/writes_a_page/bad.py:2: raised an unexpected PermissionError:"
        " snippets may not write to",
    ),
    "deletes_a_page": (
        "import os\n\nos.remove('../../docs/index.md')\n",
        "docs/deletes_a_page.md:3: snippets/deletes_a_page/bad.py:3: raised an unexpected PermissionError",
    ),
    # The same two writes from C, past the audit hook: the kernel refuses them (Landlock: EACCES;
    # or, for a project under /tmp as here, ENOENT: the snippet's /tmp holds only its own folder).
    "writes_from_c": (
        _C_OPEN + "fd = libc.open(b'../../docs/index.md', os.O_WRONLY | os.O_TRUNC)\n" + _REFUSED,
        "docs/writes_from_c.md:3: snippets/writes_from_c/bad.py:7: raised an unexpected PermissionError: [Errno ",
    ),
    # /dev holds the machine's disks, and the build may run as root: a snippet may write to
    # /dev/null and its like (and /dev/shm), not make or change anything else there. (Its /dev
    # is a read-only copy with only those: EROFS. Without namespaces, Landlock refuses: EACCES.)
    "makes_a_device_file": (
        _C_OPEN + f"fd = libc.open(b'{DEV_PROBE}', os.O_WRONLY | os.O_CREAT, 0o600)\n" + _REFUSED,
        "docs/makes_a_device_file.md:3: snippets/makes_a_device_file/bad.py:7: raised an unexpected"
        " PermissionError: [Errno ",
    ),
    "memory": (
        "# snippet: memory 512MB\nprint('allocating')\nblock = bytearray(5 * 1024**3)\n",  # touched up to the limit
        # the kernel's OOM killer ends it at the limit of its memory cgroup: no stack, so no line but the first
        "docs/memory.md:3: snippets/memory/bad.py:1: stopped at its memory limit of 512MB",
    ),
    "output": (
        "for i in range(40_000):\n    print('a line of output that is long enough', i)\n",
        "docs/output.md:3: snippets/output/bad.py:2: stopped at its output limit of 1MB",
    ),
    "network": (
        "import socket\n\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\n",
        "docs/network.md:3: snippets/network/bad.py:3: raised an unexpected PermissionError: snippets may not use"
        " the network",
    ),
    "segfault": (
        "import ctypes\nprint('before')\nctypes.string_at(0)\n",
        "docs/segfault.md:3: snippets/segfault/bad.py:3: the process running this snippet died here",
    ),
    "os_exit": (
        "import os\n\nos._exit(3)\n",
        # os._exit leaves no stack (no documented hook sees it on 3.11): the snippet's first line
        "docs/os_exit.md:3: snippets/os_exit/bad.py:1: the process running this snippet died at a line no stack"
        " names (exit code 3)",
    ),
    "sys_exit": (
        "import sys\nprint('half')\nsys.exit(0)\nprint('the rest')\n",
        "docs/sys_exit.md:3: snippets/sys_exit/bad.py:3: called sys.exit(0)",
    ),
    "not_utf8": (
        b"print('caf\xe9')\n",
        "docs/not_utf8.md:3: snippets/not_utf8/bad.py:1: is not UTF-8: byte 0xe9 at offset 10",
    ),
    "address": (
        "value = object()\nprint('made it')\nprint(id(value))\n",
        "docs/address.md:3: snippets/address/bad.py:3: printed a memory address",
    ),
    "mid_line": (None, "docs/mid_line.md:3: malformed include 'Look: {{ run mid_line/bad.py }}'"),
    "timeout": (
        "# snippet: timeout 1\nimport time\nwhile True:\n    time.sleep(0.01)\n",
        "docs/timeout.md:3: snippets/timeout/bad.py:",
    ),
}


def _page(name: str) -> str:
    if name == "traversal":
        return "# Traversal\n\n{{ run ../../evil.py }}\n"
    if name == "symlink_out":
        return "# Symlink\n\n{{ run symlink_out/bad.py }}\n"
    if name == "mid_line":
        return "# Mid line\n\nLook: {{ run mid_line/bad.py }}\n"
    return f"# {name}\n\n{{{{ run {name}/bad.py }}}}\n"


def _nav(names) -> str:
    return "nav:\n  - index.md\n" + "".join(f"  - {name}.md\n" for name in names)


def _outside(tmp_path) -> set[str]:
    return {p.name for p in tmp_path.iterdir()} - {"project"}


def _processes_in(root) -> list[str]:
    left = []
    for process in psutil.process_iter(["pid", "cwd", "cmdline"]):
        cwd, cmdline = process.info["cwd"] or "", " ".join(process.info["cmdline"] or [])
        if process.info["pid"] != os.getpid() and (cwd.startswith(str(root)) or str(root) in cmdline):
            left.append(f"{process.info['pid']}: {cmdline} (in {cwd})")
    return left


@pytest.fixture
def project(tmp_path, built):
    """A project in tmp_path/project, with a good site/ built (a copy of the one built once:
    conftest.py's ``built``); tmp_path/evil.py outside it."""
    scratch = built
    (tmp_path / "evil.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('ran.txt').write_text('evil ran')\nprint('evil')\n"
    )
    scratch.good_index = (scratch.root / "site" / "index.html").read_bytes()
    scratch.outside_before = _outside(tmp_path)
    return scratch


def _assert_contained(project, tmp_path):
    assert (project.root / "site" / "index.html").read_bytes() == project.good_index, "site/ was changed"
    assert not list(project.root.glob("site.staging-*")), "a staging folder was left behind"
    assert _outside(tmp_path) == project.outside_before, "something was written outside the project"
    assert _processes_in(project.root) == [], "processes were left running"


def test_every_bad_snippet_fails_the_build_with_its_page_and_line_all_in_one_run(project, tmp_path):
    names = list(BROKEN)
    project.write(
        "mkdocs.yml",
        "site_name: scratch\ntheme: mkdocs\nstrict: true\n"
        + _nav(names)
        + "plugins:\n  - snippet-runner:\n      preload: []\n",
    )
    for name, (code, _) in BROKEN.items():
        project.write(f"docs/{name}.md", _page(name))
        if isinstance(code, bytes):
            (project.root / "snippets" / name).mkdir(parents=True)
            (project.root / "snippets" / name / "bad.py").write_bytes(code)
        elif code is not None:
            project.write(f"snippets/{name}/bad.py", code)
    (project.root / "snippets" / "symlink_out").mkdir()
    (project.root / "snippets" / "symlink_out" / "bad.py").symlink_to(tmp_path / "evil.py")

    try:
        status, log = project.build()
    finally:
        made = os.path.exists(DEV_PROBE)
        if made:
            os.unlink(DEV_PROBE)
    assert not made, f"a snippet made {DEV_PROBE}"

    assert status != 0
    assert f"{len(BROKEN)} snippets failed, in page order" in log
    positions = []
    for name, (_, expected) in BROKEN.items():
        assert expected in log, f"{name}: {expected!r} not in the build log:\n{log[-6000:]}"
        positions.append(log.index(expected))
    assert positions == sorted(positions), "failures are not listed in page order"
    assert "evil ran" not in log and not (tmp_path / "ran.txt").exists(), "a file outside snippets/ ran"
    assert (project.root / "docs" / "index.md").read_text().startswith("# Page"), "a snippet changed a page"
    assert "… cut:" in log, "the 1 MB output was not cut in the message"
    assert len(log) < 200_000
    _assert_contained(project, tmp_path)


LEFTOVERS = {
    # culprit code: each leaves something behind that used to change the next snippet's output
    "repr": "import torch\ntorch.Tensor.__repr__ = lambda self: 'patched'\nprint('patched the repr')\n",
    "device": "import torch\ntorch.set_default_device('meta')\nprint('default device is meta')\n",
    "print": "import builtins\nbuiltins.print = lambda *a, **k: None\n",
    "thread": (
        "import threading, time\n\n"
        "def nag():\n    time.sleep(0.2)\n    while True:\n        print('nag')\n        time.sleep(0.001)\n\n"
        "threading.Thread(target=nag).start()\nprint('started a thread that prints later')\n"
    ),
    "child": "import subprocess\nsubprocess.Popen(['sleep', '313.25'])\nprint('started a child process')\n",
    "file": "handle = open(__file__)\nprint('left a file open')\n",
    # what a snippet may write outside its scratch folder: the null device (from Python, from C,
    # and a child's output thrown away), and POSIX shared memory and semaphores (/dev/shm)
    "devnull": (
        "import ctypes, multiprocessing, os, subprocess\n"
        "open(os.devnull, 'w').write('gone')\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "assert libc.open(b'/dev/null', os.O_WRONLY) >= 0, os.strerror(ctypes.get_errno())\n"
        "subprocess.run(['echo', 'gone'], stdout=subprocess.DEVNULL, check=True)\n"
        "lock = multiprocessing.Lock()\n"
        "print('wrote to /dev/null, made a lock')\n"
    ),
}
INNOCENT = "import torch\n\nprint(torch.ones(2) * 3)\nprint('done')\n"


def test_leftovers_never_change_the_next_snippet(project, tmp_path):
    project.write(
        "mkdocs.yml",
        "site_name: scratch\ntheme: mkdocs\nstrict: true\nplugins:\n  - snippet-runner:\n      preload: [torch]\n",
    )
    lines = ["# Leftovers", ""]
    for name, culprit in LEFTOVERS.items():
        project.write(f"snippets/index/{name}.py", culprit)
        project.write(f"snippets/index/{name}_next.py", INNOCENT)
        lines += [f"{{{{ run index/{name}.py }}}}", "", f"{{{{ run index/{name}_next.py }}}}", ""]
    project.write("docs/index.md", "\n".join(lines))
    code, log = project.accept()
    assert code == 0, log
    for name in LEFTOVERS:
        assert (project.root / "snippets" / "index" / f"{name}_next.out").read_text() == "tensor([3., 3.])\ndone\n", (
            name
        )
    code, log = project.build()
    assert code == 0, log
    assert not [p for p in psutil.process_iter(["cmdline"]) if "313.25" in " ".join(p.info["cmdline"] or [])]
    assert _processes_in(project.root) == []


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("cache_dir: /tmp/elsewhere", "mkdocs.yml (snippet-runner cache_dir): /tmp/elsewhere is not a folder inside"),
        ("cache_dir: ../elsewhere", "mkdocs.yml (snippet-runner cache_dir)"),
        ("notebook_dir: ../../notebooks", "mkdocs.yml (snippet-runner notebook_dir)"),
        ("notebooks: {'../..': lessons}", "mkdocs.yml (snippet-runner notebooks): '../..' must be a folder inside"),
        ("snippets_dir: /etc", "mkdocs.yml (snippet-runner snippets_dir)"),
    ],
)
def test_a_setting_that_points_outside_the_project_is_refused(project, tmp_path, setting, expected):
    project.write(
        "mkdocs.yml",
        f"site_name: scratch\ntheme: mkdocs\nstrict: true\nplugins:\n  - snippet-runner:\n      preload: []\n      {setting}\n",
    )
    status, log = project.build()
    assert status != 0 and expected in log, log
    _assert_contained(project, tmp_path)


def test_a_pdf_path_outside_the_site_is_refused(project, tmp_path):
    project.write(
        "mkdocs.yml",
        "site_name: scratch\ntheme: mkdocs\nplugins:\n  - snippet-runner:\n      preload: []\n"
        "  - print-site:\n      path_to_pdf: ../../escaped.pdf\n",
    )
    status, log = project.build()
    assert status != 0 and "mkdocs.yml (snippet-runner print-site path_to_pdf)" in log, log
    _assert_contained(project, tmp_path)


def test_a_failed_preload_is_reported_once_as_such(project, tmp_path):
    project.write(
        "mkdocs.yml",
        "site_name: scratch\ntheme: mkdocs\nplugins:\n  - snippet-runner:\n      preload: [no_such_module]\n",
    )
    project.write("snippets/page/hello.py", "print('hello')  # edited, so it must run\n")
    status, log = project.build()
    assert status != 0
    assert log.count("could not import 'no_such_module'") == 1, log
    assert "mkdocs.yml (snippet-runner preload)" in log and "ModuleNotFoundError" in log
    _assert_contained(project, tmp_path)


def test_make_accept_never_runs_or_writes_outside_snippets(project, tmp_path):
    project.write("docs/index.md", "# Page\n\n{{ run ../../evil.py }}\n")
    code, log = project.accept()
    assert code != 0 and "an include must name a file inside snippets/" in log
    assert not (tmp_path / "evil.out").exists() and not (tmp_path / "ran.txt").exists()
    _assert_contained(project, tmp_path)


def test_make_accept_refuses_an_output_that_differs_between_two_runs(project, tmp_path):
    project.write("snippets/page/hello.py", "import random\nprint('value:', random.random())\n")
    code, log = project.accept()
    assert code != 0
    assert "snippets/page/hello.py:1: printed something different in two fresh runs" in log
    assert "--- first run" in log and "+++ second run" in log
    assert (project.root / "snippets" / "page" / "hello.out").read_text() == "hello\n"  # not approved
    _assert_contained(project, tmp_path)


def test_a_ctrl_c_that_a_library_swallows_still_ends_the_build(tmp_path, monkeypatch, capsys):
    """A KeyboardInterrupt raised while a finalizer or a library's ``except BaseException`` runs is
    lost there; the build must end as interrupted all the same, and keep the old site."""
    from snippet_runner.site import build as site

    def build_that_swallows_it(config, staging):
        (staging / "index.html").write_text("half a new site")
        try:  # noqa: SIM105 - spelled out as the library does it
            signal.raise_signal(signal.SIGINT)
        except BaseException:  # noqa: BLE001 - what such a library does, spelled out
            pass
        return 0

    monkeypatch.setattr(site, "_mkdocs_build", build_that_swallows_it)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("the old site")
    before = signal.getsignal(signal.SIGINT)  # Python's own, or SIG_IGN in a job started with `&` by a shell
    code = site.build(None, tmp_path / "site", tmp_path / "mkdocs.yml", epoch=0)
    assert code == 130 and "Build interrupted; site/ was left as it was" in capsys.readouterr().err
    assert (tmp_path / "site" / "index.html").read_text() == "the old site"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging folder left
    assert signal.getsignal(signal.SIGINT) is before  # put back
    assert "SOURCE_DATE_EPOCH" not in os.environ  # the build's date was the build's alone


def test_ctrl_c_during_a_build_leaves_the_old_site_and_no_staging_folder(project, tmp_path):
    project.write("snippets/page/hello.py", "import time\ntime.sleep(20)\nprint('hello')\n")
    tmp = tmp_path / "tmp"  # the build's own TMPDIR, where its worker makes its sandbox's folder
    tmp.mkdir()
    project.outside_before = _outside(tmp_path)
    build = site_build_running_a_snippet(project.root, tmp)  # `make site`
    assert list(project.root.glob("site.staging-*")), "no build under way"
    os.killpg(build.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    log, _ = build.communicate(timeout=60)
    assert build.returncode != 0
    assert "Build interrupted; site/ was left as it was" in log
    _assert_contained(project, tmp_path)


# -- a snippet learns nothing and leaves nothing (issue 22) -------------------------------------
# Each case is a real build with a real secret, file, process or socket; each checks that the
# secret appears neither in the log nor in the site, that the build fails with one message naming
# the snippet (and the limit), and that nothing is left running or lying around.


def _nowhere(secret: str, log: str, project) -> None:
    assert secret not in log, "the secret is in the build log"
    for path in project.root.rglob("*"):
        if path.is_file() and ".git" not in path.parts and path.parts[-2:] != ("page", "spy.py"):
            assert secret.encode() not in path.read_bytes(), f"the secret is in {path}"


def _spy(project, code: str) -> None:
    project.write("docs/index.md", "# Page\n\nIntro.\n\n{{ run page/spy.py }}\n")
    project.write("snippets/page/spy.py", code)


def test_a_snippet_never_sees_the_builds_environment(project, tmp_path):
    secret = f"token-{os.urandom(8).hex()}"
    _spy(
        project,
        "import os\n\n"
        "print(sorted(os.environ))\n"
        "print(open('/proc/self/environ', 'rb').read())\n"
        "print(open(f'/proc/{os.getppid()}/environ', 'rb').read())\n",
    )
    status, log = project.build(SNIPPET_RUNNER_TEST_SECRET=secret)
    assert status != 0
    # the build's process is outside the snippet's PID namespace: its parent is no pid (0) there
    assert "snippets/page/spy.py:5: raised an unexpected FileNotFoundError: [Errno 2]" in log, log
    assert "SNIPPET_RUNNER_TEST_SECRET" not in log
    _nowhere(secret, log, project)
    _assert_contained(project, tmp_path)


def test_a_snippet_reads_no_file_outside_its_folder(project, tmp_path):
    secret = f"private-{os.urandom(8).hex()}"
    private = tmp_path / "private.txt"  # a real private file, outside the project
    private.write_text(secret)
    private.chmod(0o600)
    notes = f"notes-{os.urandom(8).hex()}"
    project.write("snippets/other/notes.txt", notes)  # the project's own files, beside the snippets
    project.outside_before = _outside(tmp_path)
    _spy(
        project,
        "import os\n\n"
        "for path in ['../other/notes.txt', '../../mkdocs.yml', os.path.expanduser('~'), '/etc/hostname']:\n"
        "    try:\n"
        "        print(path, open(path).read())\n"
        "    except OSError as error:\n"
        "        print(path, type(error).__name__)\n"
        f"print(open({str(private)!r}).read())\n",
    )
    status, log = project.build()
    assert status != 0
    # Landlock refuses (EACCES); under /tmp, as here, the snippet's /tmp holds only its own folder (ENOENT)
    assert re.search(r"snippets/page/spy.py:8: raised an unexpected (PermissionError|FileNotFoundError)", log), log
    assert re.search(r"\.\./other/notes\.txt (PermissionError|FileNotFoundError)", log), log
    assert re.search(r"\.\./\.\./mkdocs\.yml (PermissionError|FileNotFoundError)", log), log
    assert "site_name" not in log and notes not in log
    _nowhere(secret, log, project)
    assert private.read_text() == secret
    _assert_contained(project, tmp_path)


def test_a_token_in_the_projects_git_config_stays_unread(project, tmp_path):
    token = f"ghs_{os.urandom(12).hex()}"
    (project.root / ".git").mkdir()
    (project.root / ".git" / "config").write_text(
        f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {token}\n'
    )
    _spy(project, "import subprocess\n\nprint(open('../../.git/config').read())\n")
    status, log = project.build()
    assert status != 0
    assert re.search(r"snippets/page/spy.py:3: raised an unexpected (PermissionError|FileNotFoundError)", log), log
    _nowhere(token, log, project)
    _assert_contained(project, tmp_path)


def test_shared_memory_and_scratch_files_vanish_with_the_snippet(project, tmp_path):
    secret = f"shm-{os.urandom(8).hex()}"
    theirs = f"/dev/shm/snippet-runner-test-{os.urandom(4).hex()}"  # another program's, on the machine
    mine = f"snippet-runner-left-{os.urandom(4).hex()}"
    with open(theirs, "w") as handle:
        handle.write(secret)
    try:
        project.write("docs/index.md", "# Page\n\nIntro.\n\n{{ run page/leave.py }}\n\n{{ run page/spy.py }}\n")
        project.write(
            "snippets/page/leave.py",
            "import os, tempfile\n\n"
            f"open('/dev/shm/{mine}', 'w').write('left')\n"
            f"open(os.path.join(tempfile.gettempdir(), '{mine}'), 'w').write('left')\n"
            "print('left two files')\n",
        )
        project.write("snippets/page/leave.out", "left two files\n")
        project.write(
            "snippets/page/spy.py",
            "import os, tempfile\n\n"
            "print(os.listdir('/dev/shm'), os.listdir(tempfile.gettempdir()))\n"
            f"print(open({theirs!r}).read())\n",
        )
        status, log = project.build()
        assert status != 0
        assert "snippets/page/spy.py:4: raised an unexpected FileNotFoundError" in log, log
        assert "[] []" in log, "the next snippet saw what the last one left"
        _nowhere(secret, log, project)
        assert not os.path.exists(f"/dev/shm/{mine}"), "a file the snippet wrote in /dev/shm outlived it"
        assert Path(theirs).read_text() == secret, "another program's file in /dev/shm was touched"
        assert not list(tmp_path.rglob(mine)) and not _two_levels_down(Path(tempfile.gettempdir()), mine)
        _assert_contained(project, tmp_path)
    finally:
        os.unlink(theirs)


def _two_levels_down(root: Path, name: str) -> list[Path]:
    """``root.glob(f"*/*/{name}")``, except that a folder which vanishes while it is read (another
    test's scratch folder, removed by another worker) is passed over instead of failing the search."""

    def folders_in(folder: Path) -> list[Path]:
        try:
            return [entry for entry in folder.iterdir() if entry.is_dir()]
        except OSError:
            return []

    return [below / name for child in folders_in(root) for below in folders_in(child) if (below / name).exists()]


LIMITS = {
    "fork_storm": (
        "# snippet: processes 16\nimport os, time\n\nfor _ in range(500):\n"
        "    if os.fork() == 0:\n        time.sleep(300)\n        os._exit(0)\nprint('forked 500 times')\n",
        "docs/index.md:5: snippets/page/bad.py:5: stopped at its limit of 16 processes and threads;"
        " raise it with '# snippet: processes 32' at the top of the file",
    ),
    "thread_storm": (
        "# snippet: processes 16\nimport threading, time\n\nfor _ in range(500):\n"
        "    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()\nprint('500 threads')\n",
        "docs/index.md:5: snippets/page/bad.py:5: stopped at its limit of 16 processes and threads;"
        " raise it with '# snippet: processes 32' at the top of the file",
    ),
    "small_files": (
        "# snippet: disk 1MB\nimport os, tempfile\n\nfor i in range(3000):\n"
        "    with open(os.path.join(tempfile.gettempdir(), f'f{i}'), 'w') as f:\n        f.write('x' * 900)\n"
        "print('wrote 3000 files')\n",
        "docs/index.md:5: snippets/page/bad.py:5: stopped at its disk limit of 1MB (its scratch folder's files, all"
        " together); raise it with '# snippet: disk 2MB' at the top of the file",
    ),
    "shared_memory": (
        "# snippet: shm 1MB\n\nwith open('/dev/shm/big', 'wb') as f:\n    for _ in range(100):\n"
        "        f.write(bytes(64 * 1024))\nprint('wrote 6 MB')\n",
        "docs/index.md:5: snippets/page/bad.py:5: stopped at its shared memory limit of 1MB (/dev/shm);"
        " raise it with '# snippet: shm 2MB' at the top of the file",
    ),
}


@pytest.mark.parametrize("case", list(LIMITS))
def test_a_snippet_that_exhausts_a_limit_fails_naming_it(project, tmp_path, case):
    code, expected = LIMITS[case]
    project.write("docs/index.md", "# Page\n\nIntro.\n\n{{ run page/bad.py }}\n")
    project.write("snippets/page/bad.py", code)
    status, log = project.build()
    assert status != 0
    assert expected in log, log
    assert log.count("stopped at its") == 1, log
    _assert_contained(project, tmp_path)


def test_no_socket_reaches_the_loopback_even_from_c(project, tmp_path):
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    port, udp_port = tcp.getsockname()[1], udp.getsockname()[1]
    _spy(
        project,
        "import ctypes, os, socket\n\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def address(port):\n"
        "    return socket.AF_INET.to_bytes(2, 'little') + port.to_bytes(2, 'big') + bytes([127, 0, 0, 1]) + bytes(8)\n"
        f"udp = libc.socket(socket.AF_INET, socket.SOCK_DGRAM, 0)\n"
        f"print('udp', libc.sendto(udp, b'hello', 5, 0, address({udp_port}), 16))\n"
        "tcp = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)\n"
        f"if libc.connect(tcp, address({port}), 16) != 0:\n"
        "    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))\n"
        "print('connected')\n",
    )
    try:
        status, log = project.build()
        tcp.settimeout(0.5)
        udp.settimeout(0.5)
        with pytest.raises(TimeoutError):
            tcp.accept()
        with pytest.raises(TimeoutError):
            udp.recv(16)
    finally:
        tcp.close()
        udp.close()
    assert status != 0
    # TCP: Landlock refuses the connect (EACCES) before the empty network namespace would
    # (ENETUNREACH); UDP, which Landlock does not cover, finds no route.
    assert "snippets/page/spy.py:10: raised an unexpected PermissionError: [Errno 13] Permission denied" in log, log
    assert "udp -1" in log and "connected" not in log
    _assert_contained(project, tmp_path)


def test_every_protection_is_on(tmp_path):
    """The machine runs every snippet with all of the sandbox. A machine (or a CI) that lacks a
    mechanism (user namespaces, Landlock, a pids cgroup as root) fails here, naming what is off;
    only ``SNIPPETS_SANDBOX_MAY_BE_WEAKER=1``, set on purpose, turns the failure into a skip."""
    from snippet_runner.running.pool import Runner

    runner = Runner(preload=())
    try:
        runner.wait_ready()
        off = runner.protections_off
    finally:
        runner.close()
    if off and os.environ.get("SNIPPETS_SANDBOX_MAY_BE_WEAKER") == "1":
        pytest.skip("protections off on this machine, as SNIPPETS_SANDBOX_MAY_BE_WEAKER=1 allows: " + "; ".join(off))
    assert off == (), "sandbox protections off on this machine: " + "; ".join(off)


def test_without_user_namespaces_the_build_says_once_what_is_off(project, tmp_path):
    """A machine where the worker cannot make a user namespace (here: the build runs in one whose
    limit of nested user namespaces is 0): snippets still run, under Landlock alone, and the build
    says once which protections are off."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("util-linux's unshare is not installed")
    project.write("snippets/page/hello.py", "print('hel' + 'lo')  # edited, so it must run\n")
    command = f"echo 0 > /proc/sys/user/max_user_namespaces && exec {sys.executable} -m snippet_runner site"
    done = subprocess.run(
        [unshare, "--user", "--map-root-user", "sh", "-c", command],
        cwd=project.root,
        env=ENV,
        capture_output=True,
        text=True,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert log.count("Sandbox protections that are OFF on this machine: no user namespace") == 1, log
    assert "their files in /dev/shm outlive them" in log
    assert _processes_in(project.root) == []


# -- issue 38: no snippet speaks for another, in a real `make site` --------------------------------

FORGER = """
import json, os

result = dict(outputs=["hello\\n"], error=None, seconds=0.0, peak_rss_growth_kb=0, printed_at=[], pictures=[],
              picture_errors=[], limits=[])
lines = [json.dumps(dict(kind="RunResult", id=n, **result)) for n in range(1, 40)]
lines += [json.dumps(dict(kind="Death", id=n, timed_out=False, stack="", exit_code=-11)) for n in range(1, 40)]
lines.append(json.dumps(dict(kind="PreloadFailed", module="FORGED", error="blame mkdocs.yml")))
data = ("\\n".join(lines) + "\\nINFO    -  FAKE-DOCS-BUILT in 0.01 seconds\\n\\x1b]0;owned\\x07").encode()
for fd in range(3, 1024):
    try:
        os.write(fd, data)
    except OSError:
        pass
print("\\x1b[2J\\x1b]0;title\\x07 forged nothing")
"""


def test_a_snippet_cannot_make_the_build_pass_or_cache_another_nor_write_to_its_log(project, tmp_path):
    """``page/hello.py`` is approved as printing ``hello``; edited, it prints ``goodbye``. A snippet
    on an earlier page writes forged results on every descriptor: the build still fails naming
    hello.py, nothing forged reaches the log or the cache, and no escape code reaches it raw."""
    project.write("docs/forger.md", "# Forger\n\n{{ run forger/forge.py }}\n")
    project.write("snippets/forger/forge.py", FORGER)
    project.write("snippets/forger/forge.out", "an approved output it will not print\n")
    project.write("snippets/page/hello.py", "print('goodbye')\n")
    status, log = project.build()
    assert status != 0
    assert "snippets/page/hello.py:1: output differs from the approved snippets/page/hello.out" in log, log
    assert "snippets/forger/forge.py:1: output differs" in log and "\\x1b[2J\\x1b]0;title\\x07" in log, log
    assert "\x1b" not in log and "\x07" not in log and "FAKE-DOCS-BUILT" not in log and "FORGED" not in log
    assert "exit code -11" not in log
    project.write("docs/forger.md", "# Forger\n\nGone.\n")
    status, log = project.build()
    assert status != 0 and "snippets/page/hello.py:1: output differs" in log, "a forged pass was cached"
    _assert_contained(project, tmp_path)


def test_markdowns_placeholders_in_an_output_stay_text_on_the_page(project, tmp_path):
    output = "before \x02wzxhzdk:0\x03 after \x1b[1mbold\n"
    project.write(
        "mkdocs.yml",
        "site_name: scratch\ntheme: mkdocs\nstrict: true\nplugins:\n  - search\n  - snippet-runner:\n      preload: []\n",
    )
    project.write("docs/index.md", '# Page\n\n<div class="stashed">RAW-HTML</div>\n\n{{ run page/hello.py }}\n')
    project.write("snippets/page/hello.py", f"print({output.rstrip(chr(10))!r})\n")
    (project.root / "snippets/page/hello.out").write_text(output)
    status, log = project.build()
    assert status == 0, log
    html = (project.root / "site" / "index.html").read_text()
    assert html.count("RAW-HTML") == 1, "the output pulled the page's stashed HTML into its block"
    assert "before ␂wzxhzdk:0␃ after ␛[1mbold" in html and "\x02" not in html and "\x1b" not in html
    index = (project.root / "site" / "search" / "search_index.json").read_text()
    assert "\\u2402wzxhzdk:0\\u2403" in index and "\\u0002" not in index
