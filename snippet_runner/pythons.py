"""The Pythons this project runs under, and the one flag its snippets' worker gets on every one of them.

**Which.** Python 3.11 to 3.14: every pin in ``requirements.txt`` has a wheel for each (checked with
``uv pip compile --only-binary :all: --python-version``; 3.11.0 to 3.11.4 take older releases of two
pins, by environment markers), and PyPI serves torch 2.13.0 for each. The Makefile picks the
interpreter (``tools/choose-python``); ``make verify WITH_PYTHON=...`` asks :func:`unusable` first, so
that an interpreter the worker cannot start under (3.10: ``typing.NotRequired`` is new in 3.11), or
one without the preloaded packages, gets one message instead of the same traceback once per example.

**One traceback for every version.** Since 3.11, CPython may print a line of markers under the source
line of a frame, and their form changed between versions: for ``y.backward()`` 3.11 and 3.12
print ``^^^^^^^^^^^^``, 3.13 prints ``~~~~~~~~~~^^``. An approved output holding either would differ
under the other version for nothing the example does, and a page would show one reader's Python to
everyone. The worker therefore runs with ``-X no_debug_ranges``, CPython's documented option (also
``PYTHONNODEBUGRANGES``; the one marked line in ``running/pool.py``, part of the results' cache key):
code objects keep no column positions, so no version prints a marker line.
What is left (file, line, the source line, the error) is what every Python prints, the form of 3.10
and earlier, and the part a reader compares; the README says once that their own run may add the markers
of their Python. The option also drops the positions of code loaded from ``.pyc`` files, such as
torch's own modules or a snippet's local module (checked under 3.11, 3.12 and 3.13).

Rewriting the captured text instead (deleting lines of only ``^`` and ``~``) was the other way: it
would also delete such a line that an example prints on purpose, and it would have to follow each
version's layout of the markers. The flag has neither problem and needs no code of ours.
"""

from __future__ import annotations

import json
import subprocess

OLDEST = (3, 11)
NEWEST = (3, 14)  # the newest minor version every pin has a wheel for
SUPPORTED = "Python 3.11 to 3.14"

_PROBE = """
import importlib.metadata, importlib.util, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = importlib.util.find_spec(name) is not None and importlib.metadata.version(name)
    except Exception:
        found[name] = False
print(json.dumps({"version": list(sys.version_info[:3]), "found": found}))
"""


def in_range(version: tuple[int, ...]) -> bool:
    return OLDEST <= tuple(version[:2]) <= NEWEST


def probe(python: str, packages: tuple[str, ...] = ()) -> dict:
    """What ``python`` is: ``{"version": [3, 12, 1], "found": {name: version or False}}``, from one short
    run of it (tens of milliseconds: it imports none of ``packages``, it only finds them)."""
    done = subprocess.run(
        [python, "-c", _PROBE, *packages], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise OSError(f"{python} did not run ({last})")
    return json.loads(done.stdout)


def unusable(python: str, packages: tuple[str, ...]) -> str | None:
    """Why the snippets' worker cannot run under ``python`` with ``packages`` preloaded, in one
    sentence; None when it can."""
    try:
        found = probe(python, packages)
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        return str(error)
    version = tuple(found["version"])
    if not in_range(version):
        shown = ".".join(map(str, version))
        return f"{python} is Python {shown}; the examples' worker runs on {SUPPORTED}: point it at one of those"
    missing = [name for name, there in found["found"].items() if not there]
    if missing:
        return f"{python} cannot import {' or '.join(missing)}, which the examples need: install it there"
    return None
