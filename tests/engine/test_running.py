"""How a snippet runs: as a script, from its folder, alone, with torch imported once."""

from snippet_runner import Engine


def test_runs_as_main_script_from_its_own_folder(write_snippet, engine):
    write_snippet("page/data.txt", "hello from a file beside the snippet\n")
    write_snippet(
        "page/script.py",
        """
        import os, sys
        print(__name__)
        print(os.path.basename(os.getcwd()), sys.argv)
        print(open("data.txt").read().strip())
        """,
    )
    assert engine.run("page/script.py").output == (
        "__main__\npage ['script.py']\nhello from a file beside the snippet\n"
    )


def test_each_snippet_gets_a_fresh_namespace(write_snippet, engine):
    write_snippet("page/first.py", "leftover = 1\nprint('set')\n")
    write_snippet("page/second.py", "print('leftover' in globals())\n")
    engine.run("page/first.py")
    assert engine.run("page/second.py").output == "False\n"


def test_global_torch_state_does_not_leak(write_snippet, engine):
    probe = write_snippet(
        "page/probe.py",
        "import torch\n"
        "print(torch.get_default_dtype(), torch.is_grad_enabled(), torch.get_num_threads())\n"
        "torch.manual_seed(123)\n"
        "print(torch.rand(2))\n",
    )
    before = engine.run("page/probe.py").output
    write_snippet(
        "page/vandal.py",
        """
        import torch
        torch.manual_seed(1)
        torch.rand(5)
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.set_num_threads(1)
        torch.set_printoptions(precision=1)
        """,
    )
    engine.run("page/vandal.py")
    probe.write_text(probe.read_text() + "# edited so the cache, if any, is bypassed\n")
    assert engine.run("page/probe.py").output == before
    assert "torch.float32 True" in before


def test_rng_state_is_restored_so_order_does_not_matter(write_snippet, engine):
    write_snippet("page/draw.py", "import torch\nprint(torch.rand(1))\n")
    first = engine.run("page/draw.py").output
    write_snippet("page/draw_again.py", "import torch\nprint(torch.rand(1))\n")
    assert engine.run("page/draw_again.py").output == first


def test_torch_is_imported_once_per_build(write_snippet, engine):
    before = engine.runner.workers_started  # 0 if this process's engine has not run a snippet yet
    for name in "abc":
        write_snippet(f"page/{name}.py", "import sys\nprint('torch' in sys.modules)\nimport torch\n")
    outputs = {engine.run(f"page/{name}.py").output for name in "abc"}
    assert outputs == {"True\n"}  # already imported, by the worker, before the snippet ran
    assert engine.runner.workers_started == max(before, 1)
    assert engine.runner.import_seconds is not None  # the worker preloaded it before any snippet


def test_local_module_is_reimported_fresh(write_snippet, engine):
    write_snippet("page/helper.py", "VALUE = 1\n")
    write_snippet("page/user.py", "import helper\nprint(helper.VALUE)\n")
    assert engine.run("page/user.py").output == "1\n"
    write_snippet("page/helper.py", "VALUE = 2\n")
    write_snippet("page/user2.py", "import helper\nprint(helper.VALUE)\n")
    assert engine.run("page/user2.py").output == "2\n"


def test_stdout_and_stderr_keep_their_order(write_snippet, engine):
    write_snippet(
        "page/interleave.py",
        """
        import os, sys
        print("one")
        print("two", file=sys.stderr)
        os.write(1, b"three (from the file descriptor)\\n")
        print("four")
        os.write(2, b"five\\n")
        """,
    )
    assert engine.run("page/interleave.py").output == ("one\ntwo\nthree (from the file descriptor)\nfour\nfive\n")


def test_torch_warning_is_shown_like_a_terminal_with_the_snippet_line(write_snippet, engine):
    write_snippet(
        "page/nonleaf.py",
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        (y ** 2).backward()
        print("y.grad:", y.grad)
        """,
    )
    output = engine.run("page/nonleaf.py").output
    assert output.startswith("nonleaf.py:5: UserWarning: The .grad attribute of a Tensor that is not a leaf")
    assert '\n  print("y.grad:", y.grad)\n' in output
    assert output.endswith("y.grad: None\n")
    assert "site-packages" not in output and "snippet_runner" not in output


def test_warning_raised_inside_a_library_points_at_the_snippet(write_snippet, engine):
    """The library warns about its own line (stacklevel=1), outside the snippet's folder; the reader
    is shown the snippet line that called it, as the code they can change. (The snippet writes the
    library into its scratch folder: the sandbox lets it read nothing else outside its folder.)"""
    library = (
        "import warnings\n\n\ndef compute():\n    warnings.warn('careful', UserWarning, stacklevel=1)\n    return 1\n"
    )
    write_snippet(
        "page/lib_warning.py",
        f"""
        import pathlib, sys, tempfile
        library = pathlib.Path(tempfile.mkdtemp())
        (library / "noisy.py").write_text({library!r})
        sys.path.insert(0, str(library))
        import noisy

        value = noisy.compute()
        print("value:", value)
        """,
    )
    output = engine.run("page/lib_warning.py").output
    assert output.startswith("lib_warning.py:7: UserWarning: careful\n  value = noisy.compute()\n"), output
    assert "noisy.py" not in output and "tmp" not in output
    assert output.endswith("value: 1\n")


def test_warning_from_library_code_is_attributed_to_the_calling_line(write_snippet, engine):
    write_snippet(
        "page/from_torch.py",
        """
        import torch
        import torch.nn.functional as F
        F.softmax(torch.ones(2))
        print("done")
        """,
    )
    output = engine.run("page/from_torch.py").output
    assert output.startswith("from_torch.py:3: UserWarning: Implicit dimension choice for softmax")
    assert "site-packages" not in output
    assert output.endswith("done\n")


def test_a_build_whose_path_lies_under_tmp_still_gives_snippets_the_systems_commands(write_snippet, tmp_path):
    """The sandbox hides /tmp from a snippet: a build run from a virtualenv there (PATH only under
    /tmp) once left snippets unable to find ``sleep``. The system's folders end every worker's PATH."""
    write_snippet(
        "page/sleeps.py", "import subprocess\nsubprocess.run(['sleep', '0.01'], check=True)\nprint('slept')\n"
    )
    (tmp_path / "bin").mkdir()
    engine = Engine(
        write_snippet.snippets,
        None,
        approval_mode="warn",
        preload=(),
        warm_up=False,
        worker_env={"PATH": str(tmp_path / "bin")},
    )
    try:
        assert engine.run("page/sleeps.py").output == "slept\n"
    finally:
        engine.close()
