"""The Pythons this project runs under: 3.11 to 3.14, for which every pin has a wheel.

:func:`unusable` gives one message for an interpreter the worker cannot start under (3.10 lacks ``typing.NotRequired``)
or that lacks the preloaded packages, not a traceback per example. The worker runs with ``-X no_debug_ranges``
(``running/pool.py``), so no version prints the caret lines under a traceback's source lines that changed between
versions; deleting such lines from outputs would also delete one an example prints on purpose.
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


def probe(python: str, packages: tuple[str, ...] = ()) -> dict:
    """``{"version": [3, 12, 1], "found": {name: version or False}}``, without importing ``packages``."""
    done = subprocess.run(
        [python, "-c", _PROBE, *packages], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise OSError(f"{python} did not run ({last})")
    return json.loads(done.stdout)


def unusable(python: str, packages: tuple[str, ...]) -> str | None:
    """Why the worker cannot run under ``python`` with ``packages`` preloaded; None when it can."""
    try:
        found = probe(python, packages)
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        return str(error)
    version = tuple(found["version"])
    if not OLDEST <= version[:2] <= NEWEST:
        shown = ".".join(map(str, version))
        return f"{python} is Python {shown}; the examples' worker runs on {SUPPORTED}: point it at one of those"
    missing = [name for name, there in found["found"].items() if not there]
    if missing:
        return f"{python} cannot import {' or '.join(missing)}, which the examples need: install it there"
    return None
