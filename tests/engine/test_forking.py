"""What makes forking cheap must not make it leak: one worker forked for every snippet, a frozen
garbage collector, requests queued ahead of their forks."""

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
    """Requests queued ahead: what each process changed must be invisible to the next."""
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
