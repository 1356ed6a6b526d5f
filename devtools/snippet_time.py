"""``make bench``'s row (g): the chapter's snippet time as the build spends it, against the same
snippets run one after another in one process that imported torch once (the floor: no fork, no
isolation, every lazy set-up paid once), side by side, alternating, uncached.

The build's way is measured three ways: as it runs now (workers warmed with what the snippets
touch, ``running/warmup.py``), without the warm-up (as before), and the one process. The figure
is each snippet's own run time, as its process measured it, summed (what the build's log calls
"snippet time"); the one process measures each snippet the same way, around its ``exec``.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import subprocess
import sys
from pathlib import Path

# Runs each snippet file given on the command line as `python <file>` would (from its folder, as
# __main__), one after another in this one process, output discarded; prints their times as JSON.
ONE_PROCESS = r"""
import json, os, sys, time
import torch

times = {}
null = os.open(os.devnull, os.O_WRONLY)
saved = os.dup(1), os.dup(2)
for path in sys.argv[1:]:
    folder = os.path.dirname(path)
    os.chdir(folder)
    sys.path.insert(0, folder)
    namespace = {"__name__": "__main__", "__file__": path}
    code = compile(open(path, encoding="utf-8").read(), path, "exec")
    os.dup2(null, 1), os.dup2(null, 2)
    started = time.perf_counter()
    try:
        exec(code, namespace)
    except BaseException:
        pass
    times[path] = time.perf_counter() - started
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(saved[0], 1), os.dup2(saved[1], 2)
    sys.path.remove(folder)
print(json.dumps(times))
"""


@dataclasses.dataclass
class SnippetTimes:
    warmed: float  # the build's snippet time, workers warmed
    cold_forks: float  # the same without the warm-up
    one_process: float  # the same snippets one after another in one warm process
    snippets: int

    @property
    def ratio(self) -> float:
        return self.warmed / self.one_process


def build_way(root: Path, warm_up: bool) -> tuple[float, int]:
    """Every snippet the site shows, run uncached as a cold build runs them: prefetched to the
    workers, then collected; the sum of their run times."""
    from snippet_runner.project import Project

    project = dataclasses.replace(Project.load(root / "mkdocs.yml"), warm_up=warm_up)
    engine = project.engine(approval="warn", cached=False)
    try:
        rels = list(project.shown())
        engine.prefetch(rels)
        total = sum(engine.run(rel).seconds for rel in rels)
    finally:
        engine.close()
    return total, len(rels)


def one_process(root: Path) -> float:
    from snippet_runner.project import Project

    project = Project.load(root / "mkdocs.yml")
    paths = [str(project.snippets_dir / rel) for rel in project.shown()]
    done = subprocess.run(
        [sys.executable, "-c", ONE_PROCESS, *paths], cwd=root, capture_output=True, text=True, check=True
    )
    return sum(json.loads(done.stdout.strip().splitlines()[-1]).values())


def side_by_side(root: Path, repeat: int = 3) -> SnippetTimes:
    runs: dict[str, list[float]] = {"warmed": [], "cold_forks": [], "one_process": []}
    count = 0
    for i in range(repeat):
        order = ["warmed", "cold_forks", "one_process"]
        for way in order if i % 2 == 0 else order[::-1]:
            if way == "one_process":
                runs[way].append(one_process(root))
            else:
                seconds, count = build_way(root, warm_up=way == "warmed")
                runs[way].append(seconds)
    return SnippetTimes(**{way: statistics.median(values) for way, values in runs.items()}, snippets=count)
