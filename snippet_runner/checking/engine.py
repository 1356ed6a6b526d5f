"""The core the MkDocs plugin, the CLI and the tests share: snippet in, checked output out.

``Engine.run`` takes a snippet's result from the cache or a worker and checks its limits, its
declared exception (and no other), that it printed no memory address, and its output against the
approved copy; anything a reader should not see becomes a ``SnippetError``. Only a result that
passed every check is cached, so fixing a failure's cause is enough.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from snippet_runner.checking import approved
from snippet_runner.checking.cache import ResultCache, key_for
from snippet_runner.errors import SetupError, SnippetError, SnippetErrors, WorkerError, printable
from snippet_runner.running import snippet as spec
from snippet_runner.running.pool import PreloadError, Runner, WorkerBroke
from snippet_runner.running.protocol import Death, Picture, RaisedError, RunResult
from snippet_runner.running.warmup import touched_by

APPROVAL_MODES = ("strict", "warn")  # approving is checking/approve.py's, from two runs
# A second worker costs a torch import and a warm-up, about 2.5 s of a core, and saves half of each
# snippet's 10 to 20 ms: it pays off only beyond about 300 snippets; below, it takes the build's own
# core (dev/measurements.md).
SNIPPETS_PER_EXTRA_WORKER = 160  # so a second worker starts from 320 snippets to run


def workers_for(snippets: int, limit: int) -> int:
    """How many workers to start for ``snippets`` to run, at most ``limit`` (one per core)."""
    return min(limit, max(1, snippets // SNIPPETS_PER_EXTRA_WORKER))


_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


@dataclass
class Outcome:
    snippet: spec.Snippet
    outputs: tuple[str, ...] = ()  # one per cell
    error: RaisedError | None = None  # the declared exception that happened, if any
    cached: bool = False
    seconds: float = 0.0
    peak_rss_growth_kb: int = 0
    verdict: approved.Verdict | None = None  # None when execution is off
    pictures: tuple[Picture, ...] = ()  # the data of the pictures captured from its run, checked

    @property
    def output(self) -> str:
        return "".join(self.outputs)


@dataclass
class RunRecord:
    """One snippet in one build, for the summary line and the execution report."""

    rel: str
    cached: bool
    seconds: float  # its run time, in this build or when the cached result was made
    peak_rss_growth_kb: int
    output_bytes: int = 0


class Engine:
    def __init__(
        self,
        snippets_dir: Path,
        cache_dir: Path | None = None,
        *,
        approval_mode: str = "strict",
        execute: bool = True,
        preload: tuple[str, ...] = ("torch",),
        shown_as: str = "snippets",
        worker_env: dict[str, str] | None = None,
        workers: int = 1,
        python: str | None = None,
        warm_up: bool = True,
        warm_up_names: tuple[str, ...] = (),
    ):
        if approval_mode not in APPROVAL_MODES:
            raise ValueError(f"approval_mode must be one of {APPROVAL_MODES}, not {approval_mode!r}")
        if python is not None and cache_dir is not None:
            raise ValueError("the cache is keyed on this interpreter's torch: pass cache_dir=None with python=")
        self.snippets_dir = Path(snippets_dir).resolve()
        self.shown_as = shown_as  # how messages name the snippets folder
        self.cache = ResultCache(Path(cache_dir)) if cache_dir is not None else None
        self.approval_mode = approval_mode
        self.execute = execute
        self.preload = tuple(preload)
        self.workers = max(1, workers)  # at most this many worker processes, each importing torch once
        self._worker_env = worker_env
        self._python = python  # the worker's interpreter, if not this one (make drift's other torch)
        self.warm_up = warm_up  # warm each worker with what the snippets use (warmup.py)
        self.warm_up_names = tuple(warm_up_names)  # and with these, from the settings
        self.runners = [self._new_runner()]
        self.records: list[RunRecord] = []
        self.drawings: list[float | None] = []  # what each picture drawn cost (draw.Drawer.of): seconds, or None cached
        self._tickets: dict[str, tuple[Runner, int]] = {}  # cache key -> request already sent
        self._prefetched: dict[str, tuple[spec.Snippet, str]] = {}  # what prefetch read: rel -> (snippet, key)
        self._hits: dict[str, RunResult] = {}  # cache key -> the cached result prefetch found
        # cache key -> what run() gave in this build: a snippet checked, then rendered, runs once
        self._memo: dict[str, Outcome | SnippetError] = {}

    # -- public API ----------------------------------------------------------------------------

    def begin_build(self) -> None:
        """Forget what the last build read (files may have changed since); keep the warm worker."""
        self.records.clear()
        self.drawings.clear()
        self._prefetched.clear()
        self._hits.clear()
        self._memo.clear()

    @property
    def runner(self) -> Runner:
        """The first worker: the only one unless many snippets must run at once."""
        return self.runners[0]

    def prefetch(self, rels: list[str]) -> int:
        """Send the snippets not cached to ``workers_for`` workers now; how many. ``run`` reports bad input."""
        if not self.execute:
            return 0
        todo: list[tuple[spec.Snippet, str]] = []
        for rel in rels:
            if rel in self._prefetched:  # read already in this build
                snippet, key = self._prefetched[rel]
            else:
                try:
                    snippet = self.load(rel)
                except SnippetError:
                    continue
                key = key_for(snippet, self.preload)
                self._prefetched[rel] = (snippet, key)
            if key in self._tickets or key in self._hits or any(key == k for _, k in todo):
                continue
            hit = self.cache.get(key, rel) if self.cache is not None else None
            if hit is not None:
                self._hits[key] = hit
                continue
            todo.append((snippet, key))
        count = workers_for(len(todo), self.workers)
        while len(self.runners) < count:
            self.runners.append(self._new_runner())
        for index, (snippet, key) in enumerate(todo):
            runner = self.runners[index % count]
            self._tickets[key] = (runner, runner.submit(snippet))
        return len(todo)

    def load(self, rel: str) -> spec.Snippet:
        return spec.load(self.snippets_dir, rel, self.shown_as)

    def run(self, rel: str) -> Outcome:
        if rel in self._prefetched:
            snippet, key = self._prefetched.pop(rel)
        else:
            snippet = self.load(rel)
            key = key_for(snippet, self.preload)
        if not self.execute:
            return Outcome(snippet)
        if key not in self._memo:
            try:
                outcome = self._run(snippet, key)
                self._memo[key] = _misspelled_setting(snippet, None) or outcome  # issue 43
            except SnippetError as error:
                self._memo[key] = _misspelled_setting(snippet, error) or error  # issue 43
        done = self._memo[key]
        if isinstance(done, SnippetError):
            raise done
        return done

    def _run(self, snippet: spec.Snippet, key: str) -> Outcome:
        result = self._hits.pop(key, None) or (self.cache.get(key, snippet.rel) if self.cache is not None else None)
        cached = result is not None
        if result is None:
            sent = self._tickets.pop(key, None)
            runner, ticket = sent if sent is not None else (self.runner, self.runner.submit(snippet))
            try:
                ran = runner.result(ticket, also=self.runners)
            except PreloadError as error:
                raise SetupError("mkdocs.yml (snippet-runner preload)", str(error)) from None
            except WorkerBroke as error:
                raise WorkerError(
                    (error.snippet or snippet).loc(),
                    f"the worker running this snippet sent what the build does not accept ({error});"
                    " the build stops, as a snippet may have tried to speak for another",
                ) from None
            if isinstance(ran, Death):
                _raise_death(snippet, ran)
            result = ran
        printed = sum(len(text.encode()) for text in result.outputs)
        self.records.append(RunRecord(snippet.rel, cached, result.seconds, result.peak_rss_growth_kb, printed))
        _check_limits(snippet, result)
        raised = _check_exception(snippet, result)
        _check_pictures(snippet, result)
        outcome = Outcome(
            snippet,
            outputs=result.outputs,
            error=raised,
            cached=cached,
            seconds=result.seconds,
            peak_rss_growth_kb=result.peak_rss_growth_kb,
            pictures=result.pictures,
        )
        outcome.verdict = self._judge(outcome, result)
        if not cached and self.cache is not None and outcome.verdict.approved:
            self.cache.put(key, result)  # only now: it passed every check
        return outcome

    def close(self) -> None:
        for runner in self.runners:
            runner.close()

    def summary(self) -> str:
        ran = [r for r in self.records if not r.cached]
        line = f"snippets: {len(ran)} run, {len(self.records) - len(ran)} from cache"
        if ran:
            slowest = max(ran, key=lambda r: r.seconds)
            total = sum(r.seconds for r in ran)
            line += (
                f"; {total:.3f} s of snippet time, slowest {slowest.rel} {slowest.seconds:.3f} s"
                f" (+{slowest.peak_rss_growth_kb / 1024:.1f} MB peak RSS)"
            )
        if self.runner.import_seconds is not None:
            line += (
                f"; worker imported {', '.join(self.preload) or 'nothing'} and warmed up"
                f" in {self.runner.import_seconds:.2f} s"
            )
        if len(self.runners) > 1:
            line += f" ({len(self.runners)} workers)"
        if self.runner.protections_off:
            line += "\nSandbox protections that are OFF on this machine: " + "; ".join(self.runner.protections_off)
        return printable(line)

    # -- internals -----------------------------------------------------------------------------

    def _new_runner(self) -> Runner:
        return Runner(self.preload, self._worker_env, python=self._python, warm=self.warm_names)

    def warm_names(self) -> tuple[str, ...]:
        """What a worker starting now warms: what the snippets touch (:func:`touched_by`), and the settings add."""
        if not self.warm_up:
            return self.warm_up_names
        sources = []
        for path in sorted(self.snippets_dir.rglob("*.py")):
            try:
                sources.append(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue  # the run reports it, with the page
        return tuple(sorted(set(touched_by(sources, self.preload)) | set(self.warm_up_names)))

    def _judge(self, outcome: Outcome, result: RunResult) -> approved.Verdict:
        snippet = outcome.snippet
        found = approved.memory_address(result.outputs)
        if found:
            cell, offset, address = found
            raise SnippetError(
                snippet.loc(_printed_by(result, cell, offset) or 1),
                f"printed a memory address ({address}), which changes on every run;"
                " print type(obj).__name__ or a value instead",
            )
        expected = snippet.expected_output_path
        pictures = approved.pictures_text(outcome.pictures)
        verdict = approved.compare(expected, outcome.output, snippet.approved_name)
        drawn = approved.compare_pictures(snippet.expected_pictures_path, pictures, snippet.approved_pictures_name)
        if self.approval_mode == "warn":
            return approved.merged(verdict, drawn)
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
            f"{what} differs from the approved {name}."
            f" If the change is intended, run `python -m snippet_runner accept {snippet.rel}` and review the diff.",
            detail=verdict.diff.rstrip("\n"),
        )


_LIMITS = {  # what the sandbox reports a snippet ran into -> the limit as the message names it
    "processes": "limit of {} processes and threads",
    "disk": "disk limit of {} (its scratch folder's files, all together)",
    "shm": "shared memory limit of {} (/dev/shm)",
    "memory": "memory limit of {}",
}


def _check_limits(snippet: spec.Snippet, result: RunResult) -> None:
    """A run that hit one of its limits fails, naming the limit and how to raise it."""
    printed = sum(len(text.encode()) for text in result.outputs)
    if printed > snippet.output:
        last = result.printed_at[-1][2] if result.printed_at else 1
        raise SnippetError(
            snippet.loc(last),
            f"stopped at its output limit of {_size(snippet.output)}; print less, or raise the limit with"
            f" '# snippet: output {_size(snippet.output * 4)}' at the top of the file",
            detail="".join(result.outputs),
        )
    error = result.error
    declared = snippet.raises is not None and snippet.raises.type_name in ("MemoryError", "RuntimeError")
    if error and not declared and (error.type == "MemoryError" or "can't allocate memory" in error.message):
        raise SnippetError(
            snippet.loc(error.line or 1),
            f"stopped at its memory limit of {_size(snippet.memory)}"
            f" ({error.type}{': ' if error.message else ''}{(error.message.splitlines() or [''])[0]});"
            f" raise it with '# snippet: memory {_size(snippet.memory * 2)}' at the top of the file",
        )
    hit = list(result.limits)
    if not hit and error and _refused_a_process(error):  # RLIMIT_NPROC (no cgroup) tells no one
        hit = ["processes"]
    for name in hit:
        amount, shown = getattr(snippet, name), str if name == "processes" else _size
        raise SnippetError(
            snippet.loc((error.line or 1) if error else 1),
            f"stopped at its {_LIMITS[name].format(shown(amount))}; raise it with"
            f" '# snippet: {name} {shown(amount * 2)}' at the top of the file"
            + (f" ({error.type}: {(error.message.splitlines() or [''])[0]})" if error else ""),
        )


def _refused_a_process(error) -> bool:
    """The error a refused fork or thread raises: EAGAIN from os.fork, or threading's own."""
    return (error.type == "BlockingIOError" and "[Errno 11]" in error.message) or (
        error.type == "RuntimeError" and error.message.startswith("can't start new thread")
    )


def _size(amount: int) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if amount >= size:
            return f"{amount / size:g}{unit}"
    return f"{amount} bytes"


def _printed_by(result: RunResult, cell: int, offset: int) -> int | None:
    """The snippet line whose print wrote byte ``offset`` of cell ``cell``'s output."""
    lines = [line for at_cell, at_offset, line in result.printed_at if (at_cell, at_offset) <= (cell, offset)]
    return lines[-1] if lines else None


def _raise_death(snippet: spec.Snippet, death: Death) -> NoReturn:
    line = _innermost_line(death.stack, snippet.path)
    if death.timed_out:
        raise SnippetError(
            snippet.loc(line or 1),
            f"timed out after {snippet.timeout:g} s, still running this line; if it needs longer, raise the limit"
            f" with '# snippet: timeout {snippet.timeout * 2:g}' at the top of the file",
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


def _misspelled_setting(snippet: spec.Snippet, failure: SnippetError | None) -> SnippetError | None:
    """A misspelled setting fails the snippet at its line with the right spelling, whatever the run
    did, saying if the run failed too (a misspelled ``raises``); else ``failure`` as it was."""
    hint = spec.misspelled_setting(snippet.source)
    if hint is None or isinstance(failure, SetupError):
        return failure
    then = f"; the run then failed: {failure.location}: {failure.message}" if failure is not None else ""
    return SnippetError(snippet.loc(hint[0]), hint[1] + then, detail=failure.detail if failure else "")


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
    for match in _STACK_LINE.finditer(stack):
        if match["file"] == str(path):
            return int(match["line"])
    return None


def _check_pictures(snippet: spec.Snippet, result: RunResult) -> None:
    """A picture setting the run could not satisfy fails, naming the setting's line."""
    errors = [SnippetError(snippet.loc(line), message) for line, message in result.picture_errors]
    if errors:
        raise errors[0] if len(errors) == 1 else SnippetErrors(errors)


def _check_exception(snippet: spec.Snippet, result: RunResult) -> RaisedError | None:
    error, expected = result.error, snippet.raises
    tail = "".join(result.outputs).rstrip("\n")
    if error is None:
        if expected is not None:
            raise SnippetError(
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
    type_ok = expected.type_name in (error.type, error.qualified)
    if not type_ok or expected.fragment not in error.message:
        raise SnippetError(
            where,
            f"was declared to raise {expected.describe()} but raised {error.type}: {error.message}",
            detail=tail,
        )
    return error
