"""The rules a snippet's run must pass, as plain functions of the snippet, its result and its approval.

:func:`check` applies them in order: the limits it ran into, its declared exception (and no
other), the pictures it was asked for, no memory address printed, and its output and pictures the
approved ones (:mod:`snippet_runner.checking.comparison`). Each broken rule is a ``SnippetError``
naming the snippet's line and what to do; :class:`DeclaredErrorChanged` is the one that says the
snippet did not raise what it declares, so ``make drift`` classes it without reading the wording.
Last, a misspelled setting fails the snippet whatever its run did, saying what that was.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, ParamSpec, TypeVar

from snippet_runner.checking import comparison
from snippet_runner.errors import SetupError, SnippetError, SnippetErrors
from snippet_runner.running import snippet as spec
from snippet_runner.running.protocol import Death, Picture, RaisedError, RunResult
from snippet_runner.running.settings import BY_NAME

APPROVAL_MODES = ("strict", "warn")  # warn: a verdict that is not approved is returned, not raised
MEMORY_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,}\b|\b0x[0-9a-fA-F]{8,}\b")
# id(obj) is the object's address: on 64-bit Linux, 2**40 to 2**47, 13 to 15 decimal digits.
DECIMAL_ADDRESS = re.compile(r"(?<![\d.])\d{13,15}(?![\d.])")
_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
P = ParamSpec("P")
R = TypeVar("R")


class DeclaredErrorChanged(SnippetError):
    """The snippet declares an exception (``# snippet: raises``) and raised another, or none."""


def _then_spelling(rule: Callable[P, R]) -> Callable[P, R]:
    """``rule``, then: a misspelled setting fails the snippet at its line with the right spelling,
    whatever the run did, saying if the run failed too (a misspelled ``raises``; issue 43)."""

    @functools.wraps(rule)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        snippet, failure = args[0], None
        assert isinstance(snippet, spec.Snippet)
        try:
            found = rule(*args, **kwargs)
        except SetupError:
            raise
        except SnippetError as error:
            failure = error
        if (hint := spec.misspelled_setting(snippet.source)) is None and failure is not None:
            raise failure
        if hint is None:
            return found
        then = f"; the run then failed: {failure.location}: {failure.message}" if failure is not None else ""
        raise SnippetError(snippet.loc(hint[0]), hint[1] + then, detail=failure.detail if failure else "") from None

    return checked


@_then_spelling
def check(
    snippet: spec.Snippet, result: RunResult, mode: str, rtol: float = 0.0
) -> tuple[RaisedError | None, comparison.Verdict]:
    """Every rule, in order: the exception raised as declared, and the approval's verdict (in ``mode``
    ``warn``, one that is not approved is returned)."""
    check_limits(snippet, result)
    raised = check_exception(snippet, result)
    if errors := [SnippetError(snippet.loc(line), message) for line, message in result.picture_errors]:
        raise errors[0] if len(errors) == 1 else SnippetErrors(errors)
    check_memory_addresses(snippet, result)
    return raised, check_approved(snippet, result.outputs, result.pictures, mode, rtol)


def check_limits(snippet: spec.Snippet, result: RunResult) -> None:
    """A run that hit one of its limits fails, naming the limit and how to raise it."""
    limits, error = snippet.limits, result.error
    if sum(len(text.encode()) for text in result.outputs) > limits.output:
        last = result.printed_at[-1][2] if result.printed_at else 1
        raise SnippetError(
            snippet.loc(last), _stopped("output", limits.output, 4, "print less, or "), detail="".join(result.outputs)
        )
    declared = snippet.raises is not None and snippet.raises.type_name in ("MemoryError", "RuntimeError")
    if error and not declared and (error.type == "MemoryError" or "can't allocate memory" in error.message):
        why = f" ({error.type}{': ' if error.message else ''}{(error.message.splitlines() or [''])[0]})"
        raise SnippetError(snippet.loc(error.line or 1), _stopped("memory", limits.memory, 2, why=why))
    hit = list(result.limits)
    if not hit and error and _refused_a_process(error):  # RLIMIT_NPROC (no cgroup) tells no one
        hit = ["processes"]
    if hit:
        why = f" ({error.type}: {(error.message.splitlines() or [''])[0]})" if error else ""
        where = snippet.loc((error.line or 1) if error else 1)
        raise SnippetError(where, _stopped(hit[0], getattr(limits, hit[0]), 2, after=why))


def _stopped(name: str, amount: float, times: int, fix: str = "", why: str = "", after: str = "") -> str:
    """``stopped at its memory limit of 1GB (why); raise it with '# snippet: memory 2GB' ...``."""
    row = BY_NAME[name]
    return (
        f"stopped at its {row.stopped.format(row.shown(amount))}{why}; {fix}raise {'the limit' if fix else 'it'} with"
        f" '# snippet: {name} {row.shown(amount * times)}' at the top of the file{after}"
    )


def _refused_a_process(error: RaisedError) -> bool:
    """The error a refused fork or thread raises: EAGAIN from os.fork, or threading's own."""
    return (error.type == "BlockingIOError" and "[Errno 11]" in error.message) or (
        error.type == "RuntimeError" and error.message.startswith("can't start new thread")
    )


def check_exception(snippet: spec.Snippet, result: RunResult) -> RaisedError | None:
    """The exception it declares, and no other; returns the one it raised as declared."""
    error, expected = result.error, snippet.raises
    tail = "".join(result.outputs).rstrip("\n")
    if error is None:
        if expected is not None:
            raise DeclaredErrorChanged(
                snippet.loc(expected.line),
                f"was declared to raise {expected.describe()} but finished without an exception",
            )
        return None
    where = snippet.loc(error.line or 1)
    if expected is None and error.type == "SystemExit":
        raise SnippetError(
            where,
            f"called sys.exit({error.message}), which ends the snippet before its end; remove the call, or"
            " declare it with '# snippet: raises SystemExit' if stopping early is the point",
            detail=tail,
        )
    if expected is None:
        raise SnippetError(where, f"raised an unexpected {error.type}: {error.message}", detail=tail)
    if expected.type_name not in (error.type, error.qualified) or expected.fragment not in error.message:
        raise DeclaredErrorChanged(
            where, f"was declared to raise {expected.describe()} but raised {error.type}: {error.message}", detail=tail
        )
    return error


def check_memory_addresses(snippet: spec.Snippet, result: RunResult) -> None:
    """No memory address printed (it changes on every run), named at the line that printed it."""
    for cell, output in enumerate(result.outputs):
        found = [m for m in MEMORY_ADDRESS.finditer(output)]
        found += [m for m in DECIMAL_ADDRESS.finditer(output) if 2**40 <= int(m.group(0)) < 2**47]
        if found:
            first = min(found, key=lambda m: m.start())
            at = (cell, len(output[: first.start()].encode()))
            lines = [line for at_cell, offset, line in result.printed_at if (at_cell, offset) <= at]
            raise SnippetError(
                snippet.loc(lines[-1] if lines else 1),
                f"printed a memory address ({first[0]}), which changes on every run;"
                " print type(obj).__name__ or a value instead",
            )


def check_approved(
    snippet: spec.Snippet, outputs: tuple[str, ...], pictures: tuple[Picture, ...], mode: str, rtol: float = 0.0
) -> comparison.Verdict:
    """Its output, then its pictures, are the approved ones; ``warn`` returns both verdicts in one."""
    verdict = comparison.compare(snippet.expected_output_path, "".join(outputs), snippet.approved_name, rtol)
    drawn = comparison.compare_pictures(
        snippet.expected_pictures_path, comparison.pictures_text(pictures), snippet.approved_pictures_name, rtol
    )
    if mode == "warn":
        return comparison.merged(verdict, drawn)
    if verdict.approved:
        verdict = drawn  # the output is approved: what its pictures show must be too
        name, what = snippet.approved_pictures_name, "picture data"
    else:
        name, what = snippet.approved_name, "output"
    if verdict.approved:
        return verdict
    if verdict.missing:
        raise SnippetError(
            snippet.loc(),
            f"no approved {what} yet: {name} is missing. Run `python -m snippet_runner accept {snippet.rel}`,"
            " review the new file, and commit it.",
        )
    raise SnippetError(
        snippet.loc(),
        f"{what} differs from the approved {name}. If the change is intended, run"
        f" `python -m snippet_runner accept {snippet.rel}` and review the diff.",
        detail=verdict.diff.rstrip("\n"),
    )


@_then_spelling
def died(snippet: spec.Snippet, death: Death) -> NoReturn:
    """A run that timed out or crashed fails at the line it was running."""
    line = _innermost_line(death.stack, snippet.path)
    if death.timed_out:
        timeout = snippet.limits.timeout
        raise SnippetError(
            snippet.loc(line or 1),
            f"timed out after {timeout:g} s, still running this line; if it needs longer, raise the limit"
            f" with '# snippet: timeout {timeout * 2:g}' at the top of the file",
            detail=_snippet_stack(death.stack, snippet.path) if line is None else "",
        )
    if death.exit_code == 0:  # it ended well, but left no account of its run the build accepts (worker.py)
        why = "its run ended, but what its process reported of it is not what the engine records"
        raise SnippetError(snippet.loc(), f"{why}; a snippet must not rewrite the engine's records", detail=death.stack)
    where = "here" if line else "at a line no stack names"
    raise SnippetError(
        snippet.loc(line or 1),
        f"the process running this snippet died {where} (exit code {death.exit_code})",
        detail=_snippet_stack(death.stack, snippet.path),
    )


def _snippet_stack(stack: str, path: Path) -> str:
    """faulthandler's dump, kept to its headline and the frames of the snippet's own folder."""
    folder = str(path.parent) + "/"
    kept = [
        line.replace(folder, "")
        for line in stack.splitlines()
        if line.strip() and ("File " not in line or folder in line)
    ]
    return "\n".join(kept) or "(no stack was written: os._exit() and a kill from outside leave none)"


def _innermost_line(stack: str, path: Path) -> int | None:
    """faulthandler lists the most recent call first: the first frame in the snippet wins."""
    return next((int(m["line"]) for m in _STACK_LINE.finditer(stack) if m["file"] == str(path)), None)
