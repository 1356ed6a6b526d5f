"""Declared exceptions are shown; anything else stops the build with the snippet's file:line."""

import pytest

from snippet_runner import SnippetError

BACKWARD_TWICE = """
# snippet: raises RuntimeError: backward through the graph a second time
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
print("first:", x.grad)
y.backward()
print("never printed")
"""


def test_declared_error_shows_output_then_trimmed_traceback(write_snippet, engine):
    write_snippet("page/twice.py", BACKWARD_TWICE)
    outcome = engine.run("page/twice.py")
    assert outcome.error.type == "RuntimeError"
    assert outcome.output.startswith(
        "first: tensor(4.)\n"
        "Traceback (most recent call last):\n"
        '  File "twice.py", line 8, in <module>\n'
        "    y.backward()\n"
        "RuntimeError: Trying to backward through the graph a second time"
    )
    assert "site-packages" not in outcome.output and "never printed" not in outcome.output


def test_declared_error_that_does_not_happen_fails(write_snippet, engine):
    write_snippet("page/calm.py", "# snippet: raises RuntimeError: boom\nprint('fine')\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/calm.py")
    assert str(caught.value) == (
        "snippets/page/calm.py:1: was declared to raise RuntimeError: boom but finished without an exception"
    )


def test_a_different_error_than_declared_fails(write_snippet, engine):
    write_snippet("page/other.py", "# snippet: raises RuntimeError: boom\n\nraise ValueError('not that')\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/other.py")
    assert str(caught.value).startswith(
        "snippets/page/other.py:3: was declared to raise RuntimeError: boom but raised ValueError: not that"
    )


def test_right_type_wrong_message_fails(write_snippet, engine):
    write_snippet("page/msg.py", "# snippet: raises RuntimeError: boom\nraise RuntimeError('bang')\n")
    with pytest.raises(SnippetError, match="declared to raise RuntimeError: boom but raised RuntimeError: bang"):
        engine.run("page/msg.py")


def test_unexpected_exception_names_file_and_line(write_snippet, engine):
    write_snippet("page/oops.py", "print('before')\n\n\n1 / 0\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/oops.py")
    assert str(caught.value).startswith(
        "snippets/page/oops.py:4: raised an unexpected ZeroDivisionError: division by zero"
    )
    assert "before" in caught.value.detail


def test_unexpected_exception_in_a_local_module_points_at_the_snippet_line(write_snippet, engine):
    write_snippet("page/helper.py", "def explode():\n    raise KeyError('k')\n")
    write_snippet("page/caller.py", "import helper\n\nhelper.explode()\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/caller.py")
    assert str(caught.value).startswith("snippets/page/caller.py:3: raised an unexpected KeyError")


def test_syntax_error_names_file_and_line(write_snippet, engine):
    write_snippet("page/broken.py", "x = 1\ny = (\nprint(x)\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/broken.py")
    assert str(caught.value).startswith("snippets/page/broken.py:2: syntax error")
    assert engine.records == []  # caught before anything ran


def test_missing_snippet(write_snippet, engine):
    write_snippet("page/exists.py", "print(1)\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/nope.py")
    assert str(caught.value) == "snippets/page/nope.py:1: snippet file does not exist"


def test_unknown_setting_is_rejected(write_snippet, engine):
    write_snippet("page/typo.py", "# snippet: raise RuntimeError\nprint(1)\n")
    with pytest.raises(SnippetError, match=r"snippets/page/typo.py:1: unknown setting"):
        engine.run("page/typo.py")


def test_hang_is_stopped_at_its_timeout_naming_the_line(write_snippet, engine):
    write_snippet(
        "page/hang.py", "# snippet: timeout 1\nimport time\nprint('started')\nwhile True:\n    time.sleep(0.01)\n"
    )
    with pytest.raises(SnippetError) as caught:
        engine.run("page/hang.py")
    message = str(caught.value)
    assert message.startswith("snippets/page/hang.py:")
    assert message.split(":")[1] in {"4", "5"}
    assert "timed out after 1 s" in message


def test_after_a_hang_the_queued_snippets_still_run_in_the_same_warm_worker(write_snippet, engine):
    before = engine.runner.workers_started  # 0 if this process's engine has not run a snippet yet
    # any deadline will do: what is checked is what runs after it
    write_snippet("page/hang.py", "# snippet: timeout 0.5\nwhile True:\n    pass\n")
    write_snippet("page/next.py", "print('still works')\n")
    assert engine.prefetch(["page/hang.py", "page/next.py"]) == 2  # next.py waits behind the hang
    with pytest.raises(SnippetError):
        engine.run("page/hang.py")
    assert engine.run("page/next.py").output == "still works\n"
    assert engine.runner.workers_started == max(before, 1)  # only the hung snippet's own process was stopped


@pytest.mark.parametrize("call", ["sys.exit(0)", "sys.exit()", "sys.exit(3)"])
def test_sys_exit_is_an_error_unless_declared(write_snippet, engine, call):
    write_snippet("page/exit.py", f"import sys\nprint('bye')\n{call}\nprint('not reached')\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/exit.py")
    assert str(caught.value).startswith("snippets/page/exit.py:3: called sys.exit(")
    assert "ends the snippet before its end" in str(caught.value)


def test_a_declared_sys_exit_is_shown(write_snippet, engine):
    write_snippet("page/exit.py", "# snippet: raises SystemExit\nimport sys\nprint('bye')\nsys.exit(0)\n")
    outcome = engine.run("page/exit.py")
    assert outcome.error.type == "SystemExit" and outcome.output.startswith("bye\n")


def test_memory_address_in_output_is_refused(write_snippet, engine):
    write_snippet("page/addr.py", "print(object())\n")
    with pytest.raises(SnippetError, match="memory address"):
        engine.run("page/addr.py")


def _crash(write_snippet, engine, crash: str) -> SnippetError:
    write_snippet("page/helper.py", f"def boom():\n    {crash.splitlines()[0]}\n    {crash.splitlines()[1]}\n")
    write_snippet("page/crash.py", "import helper\nprint('before the crash')\n\nhelper.boom()\nprint('never')\n")
    write_snippet("page/after.py", "print('the next snippet still runs')\n")
    engine.prefetch(["page/crash.py", "page/after.py"])
    with pytest.raises(SnippetError) as caught:
        engine.run("page/crash.py")
    assert engine.run("page/after.py").output == "the next snippet still runs\n"
    return caught.value


def test_a_crash_names_the_line_where_it_died_with_the_stack(write_snippet, engine):
    error = _crash(write_snippet, engine, "import ctypes\nctypes.string_at(0)")
    assert str(error).startswith("snippets/page/crash.py:4: the process running this snippet died here")
    assert 'File "crash.py", line 4' in error.detail  # the stack, the snippet's own frames
    assert 'File "helper.py", line 3' in error.detail


def test_an_os_exit_names_the_snippet_and_its_exit_code(write_snippet, engine):
    """os._exit writes no stack (no documented hook sees it on 3.11): the snippet's first line."""
    error = _crash(write_snippet, engine, "import os\nos._exit(3)")
    assert str(error).startswith(
        "snippets/page/crash.py:1: the process running this snippet died at a line no stack names (exit code 3)"
    )
    assert "no stack was written: os._exit()" in error.detail
