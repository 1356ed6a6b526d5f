"""The core the MkDocs plugin, the CLI and the tests share: snippet in, checked output out.

``Engine.run`` takes a snippet's result from the cache or a worker (scheduling the runs over its workers, each result
read once a build) and holds it to the rules of :mod:`snippet_runner.checking.rules`; anything a reader should not see
becomes a ``SnippetError``. Only a result that passed every rule is cached, so fixing a failure's cause is enough.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from snippet_runner.checking import comparison, rules
from snippet_runner.checking.cache import ResultCache, key_for
from snippet_runner.errors import SetupError, SnippetError, WorkerError, printable
from snippet_runner.pictures import vizjs
from snippet_runner.running import snippet as spec
from snippet_runner.running.pool import PreloadError, Runner, WorkerBroke
from snippet_runner.running.protocol import Death, Picture, RaisedError, RunResult
from snippet_runner.running.warmup import touched_by

APPROVAL_MODES = rules.APPROVAL_MODES  # approving is checking/accept.py's, from two runs
# A second worker costs a torch import and a warm-up, about 2.5 s of a core, and saves half of each snippet's 10 to
# 20 ms: it pays off only beyond about 300 snippets; below, it takes the build's own core (dev/measurements.md).
SNIPPETS_PER_EXTRA_WORKER = 160  # so a second worker starts from 320 snippets to run


def workers_for(snippets: int, limit: int) -> int:
    """How many workers to start for ``snippets`` to run, at most ``limit`` (one per core)."""
    return min(limit, max(1, snippets // SNIPPETS_PER_EXTRA_WORKER))


@dataclass
class Outcome:
    snippet: spec.Snippet
    outputs: tuple[str, ...] = ()  # one per cell
    error: RaisedError | None = None  # the declared exception that happened, if any
    cached: bool = False
    seconds: float = 0.0
    peak_rss_growth_kb: int = 0
    verdict: comparison.Verdict | None = None  # None when execution is off
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
        self.rtol = 0.0  # numbers within this relative tolerance pass, as "close" (verify --rtol; warn only)
        self.runners = [self._new_runner()]
        self.records: list[RunRecord] = []
        self.drawings: list[float | None] = []  # what each picture drawn cost (draw.Drawer.of): seconds, or None cached
        self.layout = vizjs.Layout()  # lays out the build's graphs (draw.Drawer.of), closed with the workers
        self._tickets: dict[str, tuple[Runner, int]] = {}  # cache key -> request already sent
        self._prefetched: dict[str, tuple[spec.Snippet, str]] = {}  # what prefetch read: rel -> (snippet, key)
        self._hits: dict[str, RunResult] = {}  # cache key -> the cached result prefetch found
        # cache key -> what run() gave in this build: a snippet checked, then rendered, runs once
        self._memo: dict[str, Outcome | SnippetError] = {}

    def begin_build(self) -> None:
        """Forget what the last build read (files may have changed since); keep the warm worker."""
        for held in (self.records, self.drawings, self._prefetched, self._hits, self._memo):
            held.clear()

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
                self._memo[key] = self._run(snippet, key)
            except SnippetError as error:
                self._memo[key] = error
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
                rules.died(snippet, ran)
            result = ran
        printed = sum(len(text.encode()) for text in result.outputs)
        self.records.append(RunRecord(snippet.rel, cached, result.seconds, result.peak_rss_growth_kb, printed))
        raised, verdict = rules.check(snippet, result, self.approval_mode, self.rtol)
        outcome = Outcome(
            snippet,
            outputs=result.outputs,
            error=raised,
            cached=cached,
            seconds=result.seconds,
            peak_rss_growth_kb=result.peak_rss_growth_kb,
            pictures=result.pictures,
            verdict=verdict,
        )
        if not cached and self.cache is not None and verdict.approved:
            self.cache.put(key, result)  # only now: it passed every check
        return outcome

    def close(self) -> None:
        for runner in self.runners:
            runner.close()
        self.layout.close()

    def summary(self) -> str:
        ran = [r for r in self.records if not r.cached]
        line = f"snippets: {len(ran)} run, {len(self.records) - len(ran)} from cache"
        if ran:
            slowest = max(ran, key=lambda r: r.seconds)
            line += (
                f"; {sum(r.seconds for r in ran):.3f} s of snippet time, slowest {slowest.rel} {slowest.seconds:.3f} s"
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
