"""The core the MkDocs plugin, the CLI and the tests share: snippet in, checked output out.

``Engine.run`` loads a snippet, takes its result from the cache or the worker, checks a declared
exception happened (and no other), and compares the output with the approved copy. Anything a
reader should not see, because it is wrong or unapproved, becomes a ``SnippetError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner import approval, spec
from snippet_runner.cache import ResultCache, key_for
from snippet_runner.errors import SnippetError
from snippet_runner.pool import Runner

APPROVAL_MODES = ("strict", "warn", "accept")
_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


@dataclass
class Outcome:
    snippet: spec.Snippet
    outputs: list[str] = field(default_factory=list)  # one per cell
    error: dict | None = None  # the declared exception that happened, if any
    cached: bool = False
    seconds: float = 0.0
    peak_rss_growth_kb: int = 0
    verdict: approval.Verdict | None = None  # None when execution is off

    @property
    def output(self) -> str:
        return "".join(self.outputs)


@dataclass
class RunRecord:
    rel: str
    cached: bool
    seconds: float
    peak_rss_growth_kb: int


class Engine:
    def __init__(
        self,
        snippets_dir: Path,
        cache_dir: Path | None = None,
        *,
        approval_mode: str = "strict",
        execute: bool = True,
        preload: tuple[str, ...] = ("torch",),
        python: str | None = None,
    ):
        if approval_mode not in APPROVAL_MODES:
            raise ValueError(f"approval_mode must be one of {APPROVAL_MODES}, not {approval_mode!r}")
        if python is not None and cache_dir is not None:
            raise ValueError("the cache is keyed on this interpreter's torch: pass cache_dir=None with python=")
        self.snippets_dir = Path(snippets_dir).resolve()
        self.cache = ResultCache(Path(cache_dir)) if cache_dir is not None else None
        self.approval_mode = approval_mode
        self.execute = execute
        self.preload = tuple(preload)
        # python: the worker's interpreter, when it is not this one (make drift runs another torch)
        self.runner = Runner(self.preload, python=python)
        self.records: list[RunRecord] = []
        self._tickets: dict[str, int] = {}  # cache key -> request already sent to the worker
        # What prefetch already read, handed to the run() that follows it in the same build:
        self._prefetched: dict[str, tuple[spec.Snippet, str]] = {}  # rel -> (snippet, cache key)
        self._hits: dict[str, dict] = {}  # cache key -> the cached result

    # -- public API ----------------------------------------------------------------------------

    def begin_build(self) -> None:
        """Forget what the last build read (files may have changed since); keep the warm worker."""
        self.records.clear()
        self._prefetched.clear()
        self._hits.clear()

    def prefetch(self, rels: list[str]) -> int:
        """Send every snippet that is not cached to the worker now; return how many were sent.

        Bad input is ignored here: ``run`` reports it, with the page that included it.
        """
        if not self.execute:
            return 0
        sent = 0
        for rel in rels:
            try:
                snippet = spec.load(self.snippets_dir, rel)
            except SnippetError:
                continue
            key = key_for(snippet, self.preload)
            self._prefetched[rel] = (snippet, key)
            if key in self._tickets or key in self._hits:
                continue
            hit = self.cache.get(key) if self._use_cache else None
            if hit is not None:
                self._hits[key] = hit
                continue
            self._tickets[key] = self.runner.submit(snippet)
            sent += 1
        return sent

    def run(self, rel: str) -> Outcome:
        if rel in self._prefetched:
            snippet, key = self._prefetched.pop(rel)
        else:
            snippet = spec.load(self.snippets_dir, rel)
            key = key_for(snippet, self.preload)
        if not self.execute:
            return Outcome(snippet)
        result = self._hits.pop(key, None) or (self.cache.get(key) if self._use_cache else None)
        cached = result is not None
        if result is None:
            ticket = self._tickets.pop(key, None) or self.runner.submit(snippet)
            result = self.runner.result(ticket)
            _raise_if_died(snippet, result)
            if self.cache is not None:
                self.cache.put(key, result)
        outcome = Outcome(
            snippet,
            outputs=result["outputs"],
            error=_check_exception(snippet, result),
            cached=cached,
            seconds=result["seconds"],
            peak_rss_growth_kb=result["peak_rss_growth_kb"],
        )
        self.records.append(RunRecord(rel, cached, outcome.seconds, outcome.peak_rss_growth_kb))
        outcome.verdict = self._judge(outcome)
        return outcome

    def close(self) -> None:
        self.runner.close()

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
            line += f"; worker imported {', '.join(self.preload) or 'nothing'} in {self.runner.import_seconds:.2f} s"
        return line

    # -- internals -----------------------------------------------------------------------------

    @property
    def _use_cache(self) -> bool:
        return self.cache is not None and self.approval_mode != "accept"

    def _judge(self, outcome: Outcome) -> approval.Verdict:
        snippet = outcome.snippet
        address = approval.memory_address(outcome.output)
        if address:
            raise SnippetError(
                snippet.loc(),
                f"output contains a memory address ({address}), which changes on every run;"
                " print type(obj).__name__ or a value instead",
            )
        expected = snippet.expected_output_path
        if self.approval_mode == "accept":
            return approval.Verdict(approved=True, changed=approval.write(expected, outcome.output))
        verdict = approval.compare(expected, outcome.output, f"snippets/{snippet.rel[:-3]}.out")
        if verdict.approved or self.approval_mode == "warn":
            return verdict
        if verdict.missing:
            raise SnippetError(
                snippet.loc(),
                f"no approved output yet: snippets/{snippet.rel[:-3]}.out is missing."
                " Run `make accept`, review the new file, and commit it.",
            )
        raise SnippetError(
            snippet.loc(),
            f"output differs from the approved snippets/{snippet.rel[:-3]}.out."
            " If the change is intended, run `make accept` and review the diff.",
            detail=verdict.diff.rstrip("\n"),
        )


def _raise_if_died(snippet: spec.Snippet, result: dict) -> None:
    if not result.get("died"):
        return
    line = _innermost_line(result["stack"], snippet.path)
    if result["timed_out"]:
        raise SnippetError(snippet.loc(line or 1), f"timed out after {snippet.timeout:g} s, still running this line")
    raise SnippetError(
        snippet.loc(line or 1),
        f"the worker process died while running this snippet (exit code {result['exit_code']})",
        detail=result["stack"].strip(),
    )


def _innermost_line(stack: str, path: Path) -> int | None:
    """faulthandler lists the most recent call first: the first frame in the snippet wins."""
    for match in _STACK_LINE.finditer(stack):
        if match["file"] == str(path):
            return int(match["line"])
    return None


def _check_exception(snippet: spec.Snippet, result: dict) -> dict | None:
    error, expected = result["error"], snippet.raises
    tail = "".join(result["outputs"]).rstrip("\n")
    if error is None:
        if expected is not None:
            raise SnippetError(
                snippet.loc(expected.line),
                f"was declared to raise {expected.describe()} but finished without an exception",
            )
        return None
    where = snippet.loc(error["line"] or 1)
    if expected is None:
        raise SnippetError(where, f"raised an unexpected {error['type']}: {error['message']}", detail=tail)
    type_ok = expected.type_name in (error["type"], error["qualified"])
    if not type_ok or expected.fragment not in error["message"]:
        raise SnippetError(
            where,
            f"was declared to raise {expected.describe()} but raised {error['type']}: {error['message']}",
            detail=tail,
        )
    return error
