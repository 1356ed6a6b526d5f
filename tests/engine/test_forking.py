"""What makes forking cheap must not make it leak: one scratch folder reused by every snippet, a
Landlock ruleset built once in the worker, a frozen garbage collector, huge pages, results read
before the child has finished exiting."""

LIST_SCRATCH = "import os, tempfile\nprint(sorted(os.listdir(tempfile.gettempdir())))\n"


def test_the_next_snippet_finds_its_scratch_folder_empty(write_snippet, engine):
    write_snippet(
        "page/litter.py",
        """
        import os, tempfile
        scratch = tempfile.gettempdir()
        os.makedirs(os.path.join(scratch, "deep", "er"))
        open(os.path.join(scratch, "deep", "er", "file"), "w").write("left behind")
        open(os.path.join(scratch, "file"), "w").write("left behind")
        os.symlink("/etc", os.path.join(scratch, "link"))
        print(sorted(os.listdir(scratch)))
        """,
    )
    write_snippet("page/look.py", LIST_SCRATCH)
    assert engine.run("page/litter.py").output == "['deep', 'file', 'link']\n"
    assert engine.run("page/look.py").output == "[]\n"


def test_a_scratch_folder_left_unusable_is_replaced(write_snippet, engine):
    write_snippet("page/lock.py", "import os, tempfile\nos.chmod(tempfile.gettempdir(), 0o500)\nprint('locked')\n")
    write_snippet(
        "page/write.py",
        """
        import os, tempfile
        scratch = tempfile.gettempdir()
        open(os.path.join(scratch, "mine"), "w").write("x")
        print(oct(os.stat(scratch).st_mode & 0o777), sorted(os.listdir(scratch)))
        """,
    )
    assert engine.run("page/lock.py").output == "locked\n"
    assert engine.run("page/write.py").output == "0o700 ['mine']\n"


def test_a_snippet_holds_no_landlock_ruleset_it_could_loosen(write_snippet, engine):
    write_snippet(
        "page/fds.py",
        """
        import os
        held = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                held.append(os.readlink(f"/proc/self/fd/{fd}"))
            except OSError:
                pass
        print([name for name in held if "landlock" in name])
        """,
    )
    assert engine.run("page/fds.py").output == "[]\n"


def test_a_process_that_left_the_group_is_gone_before_the_next_snippet_runs(write_snippet, engine):
    write_snippet(
        "page/escape.py",
        "import subprocess\nsubprocess.Popen(['sleep', '313.75'], start_new_session=True)\nprint('escaped')\n",
    )
    write_snippet(
        "page/look.py",
        """
        import os
        alive = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if b"313.75" in open(f"/proc/{pid}/cmdline", "rb").read():
                    alive.append(pid)
            except OSError:
                pass
        print(alive)
        """,
    )
    assert engine.run("page/escape.py").output == "escaped\n"
    assert engine.run("page/look.py").output == "[]\n"


def test_the_frozen_collector_still_collects_and_a_snippet_cannot_switch_it_off_for_the_next(write_snippet, engine):
    write_snippet("page/off.py", "import gc\ngc.disable()\ngc.unfreeze()\nprint(gc.isenabled())\n")
    write_snippet(
        "page/cycle.py",
        """
        import gc

        class Node:
            pass

        node = Node()
        node.me = node
        del node
        print(gc.isenabled(), gc.collect() > 0)
        """,
    )
    assert engine.run("page/off.py").output == "False\n"
    assert engine.run("page/cycle.py").output == "True True\n"


def test_many_snippets_in_a_row_each_see_a_pristine_worker(write_snippet, engine):
    """Requests queued ahead: each result is sent before its process has finished exiting, and
    what that process changed must still be invisible to the next."""
    for n in range(6):
        write_snippet(
            f"page/s{n}.py",
            "import builtins, os, tempfile, torch\n"
            "print(hasattr(builtins, 'left'), os.environ.get('LEFT'), torch.get_default_dtype(),"
            " os.listdir(tempfile.gettempdir()))\n"
            "builtins.left = 1\nos.environ['LEFT'] = '1'\ntorch.set_default_dtype(torch.float64)\n"
            "open(os.path.join(tempfile.gettempdir(), 'f'), 'w').close()\n",
        )
    rels = [f"page/s{n}.py" for n in range(6)]
    engine.prefetch(rels)  # all sent at once
    for rel in rels:
        assert engine.run(rel).output == "False None torch.float32 []\n", rel


def _kernel_collapses_huge_pages() -> bool:
    """Whether this kernel takes MADV_COLLAPSE (Linux 6.1) for private anonymous memory, as the
    worker's heap is: tried on 2 MB-aligned memory of this process."""
    import ctypes
    import mmap

    area = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        area.write(b"x" * (8 << 20))
        start = ctypes.c_char.from_buffer(area)
        aligned = -ctypes.addressof(start) % (2 << 20)
        del start  # a buffer still exported would keep the mapping from closing
        area.madvise(25, aligned, 4 << 20)  # MADV_COLLAPSE
    except OSError:
        return False
    finally:
        area.close()
    return True


def test_the_worker_backs_its_memory_with_huge_pages_once_it_waits_for_work(write_snippet, engine):
    """Done while no request waits (worker._HugePages), not before the worker says it is ready."""
    import time

    import pytest

    if not _kernel_collapses_huge_pages():
        pytest.skip("this kernel does not collapse memory into huge pages (MADV_COLLAPSE, Linux 6.1)")
    write_snippet("page/one.py", "print(1)\n")
    assert engine.run("page/one.py").output == "1\n"
    worker = engine.runner._process.proc.pid
    deadline, huge_kb = time.monotonic() + 30, 0
    while time.monotonic() < deadline and huge_kb == 0:
        with open(f"/proc/{worker}/smaps_rollup") as rollup:
            huge_kb = next(int(line.split()[1]) for line in rollup if line.startswith("AnonHugePages:"))
        time.sleep(0.1)
    assert huge_kb > 0


def _transparent_huge_pages() -> str:
    """The system's THP setting: ``always``, ``madvise`` or ``never`` (``never`` where it has none)."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as setting:
            return setting.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return "never"


SMAPS_AND_ENVIRONMENT = """
import os
import torch

with open("/proc/self/smaps_rollup") as rollup:
    huge = next(int(line.split()[1]) for line in rollup if line.startswith("AnonHugePages:"))
# the mapping that holds a small Python object torch made while the worker imported it
address, holder = id(torch.nn.functional.relu), 0
with open("/proc/self/smaps") as smaps:
    for line in smaps:
        if "-" in line.split(" ")[0] and ":" not in line.split(" ")[0]:
            low, high = (int(x, 16) for x in line.split(" ")[0].split("-"))
            inside = low <= address < high
        elif inside and line.startswith("AnonHugePages:"):
            holder = int(line.split()[1])
print(huge > 0, holder > 0, "GLIBC_TUNABLES" in os.environ)
"""


def test_the_worker_allocates_in_huge_pages_from_the_start_and_no_snippet_sees_how(write_snippet, tmp_path):
    """A new worker's first snippet, asked for before the worker is ready: the worker never waited
    for work before it, so it collapsed nothing, and whatever that snippet inherits in huge pages
    the worker allocated so: C++'s memory by glibc's settings (sandbox.FOR_FORKING), and Python's
    objects in arenas taken from glibc's heap (worker._arenas_from_malloc). Where THP is
    ``madvise`` (most systems' default, and this machine's), it prints ``False False False``
    without that environment, and ``True False False`` without the arenas' allocator."""
    import pytest

    from snippet_runner import Engine

    if _transparent_huge_pages() == "never":
        pytest.skip("transparent huge pages are off on this system")
    write_snippet("page/smaps.py", SMAPS_AND_ENVIRONMENT)
    engine = Engine(tmp_path / "snippets", approval_mode="warn")
    try:
        engine.prefetch(["page/smaps.py"])  # sent while the worker imports torch
        assert engine.run("page/smaps.py").output == "True True False\n"
    finally:
        engine.close()
