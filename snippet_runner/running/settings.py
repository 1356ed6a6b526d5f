"""What a snippet may declare in its ``# snippet:`` lines: one row a setting, and the limits as one value.

Each :class:`Setting` says how the setting is written, its default, floor and ceiling, and how messages name it. Parsing
(:mod:`snippet_runner.running.snippet`), the hint for a misspelled setting, the checks of the limits
(:mod:`snippet_runner.checking.rules`) and the tables of README.md and AUTHORING.md (checked against :func:`table` by a
test) all read this table, so a new setting is one row here, and, if it is a limit, one field of :class:`Limits` and its
enforcement in the sandbox. :class:`Limits` travels whole from the snippet to the worker and the sandbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from snippet_runner.machine import physical_memory

KB, MB, GB = 1024, 1024**2, 1024**3
_UNITS = {"kb": KB, "mb": MB, "gb": GB}
_VALUE = {  # grammar -> what the value looks like, and the value it stands for
    "SECONDS": (re.compile(r"^\d+(?:\.\d+)?$"), lambda m: float(m[0])),
    "COUNT": (re.compile(r"^\d+$"), lambda m: int(m[0])),
    "SIZE": (re.compile(r"^(\d+(?:\.\d+)?)\s*(KB|MB|GB)$", re.I), lambda m: int(float(m[1]) * _UNITS[m[2].lower()])),
}


@dataclass(frozen=True)
class Setting:
    """One ``# snippet:`` setting: a limit when it has a grammar (a number) and a default."""

    name: str  # the word after "# snippet:"
    example: str  # how it is spelled, as the table and the hint for an unknown setting show it
    what: str  # what it is, as the documentation's table names it
    grammar: str = ""  # a limit's value: SECONDS, COUNT or SIZE (others are read by snippet.py)
    default: float = 0
    floor: float = 0
    ceiling: float = 0  # 0: below this machine's RAM
    stopped: str = ""  # "stopped at its ..." in a failure's message; {} is the amount

    @property
    def limit(self) -> bool:
        return bool(self.grammar)

    def bounds(self) -> tuple[float, float]:
        return self.floor, self.ceiling or physical_memory() - 1

    def shown(self, amount: float) -> str:
        """``amount`` as a setting spells it: ``4GB``, ``60``."""
        return size(int(amount)) if self.grammar == "SIZE" else f"{amount:g}"

    def allowed(self, machine: bool = True) -> str:
        """``64KB to 4GB``; the memory ceiling as this machine's RAM, or as words (``machine=False``)."""
        top = f"{self.bounds()[1] / GB:.1f}GB, below this machine's RAM" if machine else "below the machine's RAM"
        top = self.shown(self.ceiling) if self.ceiling else top
        return f"{self.shown(self.floor)} to {top}" + (" (seconds)" if self.grammar == "SECONDS" else "")

    def read(self, text: str) -> float | None:
        """The value ``text`` spells, or None when it is not of this setting's grammar."""
        pattern, value = _VALUE[self.grammar]
        return None if (match := pattern.match(text)) is None else value(match)


# fmt: off
SETTINGS = (  # name, example, what the docs call it; a limit's grammar, default, floor, ceiling, and its message
    Setting("raises", "raises Type: message", "an exception the snippet must raise"),
    Setting("timeout", "timeout 60", "time", "SECONDS", 30.0, 0.1, 600.0, "timeout of {} s"),
    Setting("memory", "memory 6GB", "memory", "SIZE", 3 * GB, 64 * MB, 0, "memory limit of {}"),
    Setting("output", "output 4MB", "output", "SIZE", MB, KB, 64 * MB, "output limit of {}"),
    Setting("processes", "processes 256", "processes and threads at once", "COUNT", 128, 1, 4096, "limit of {} processes and threads"),
    Setting("disk", "disk 1GB", "files in its scratch folder", "SIZE", 256 * MB, 64 * KB, 4 * GB, "disk limit of {} (its scratch folder's files, all together)"),
    Setting("shm", "shm 256MB", "shared memory (`/dev/shm`)", "SIZE", 64 * MB, 64 * KB, 4 * GB, "shared memory limit of {} (/dev/shm)"),
    Setting("graph", "graph NAME", "a picture of a tensor's graph"),
    Setting("curves", "curves NAME", "a picture of lists of values"),
)
# fmt: on
BY_NAME = {setting.name: setting for setting in SETTINGS}


@dataclass(frozen=True)
class Limits:
    """A snippet's limits, one field a limit row of :data:`SETTINGS` (in that order), defaults from it."""

    timeout: float = BY_NAME["timeout"].default
    memory: int = int(BY_NAME["memory"].default)  # bytes it may allocate beyond what the worker holds
    output: int = int(BY_NAME["output"].default)  # bytes it may print
    processes: int = int(BY_NAME["processes"].default)  # processes and threads at once, its own included
    disk: int = int(BY_NAME["disk"].default)  # bytes its scratch folder may hold, all files together
    shm: int = int(BY_NAME["shm"].default)  # bytes of POSIX shared memory (/dev/shm)


LIMITS = tuple(f.name for f in fields(Limits))
if tuple(s.name for s in SETTINGS if s.limit) != LIMITS:  # a limit added to one and not the other
    raise AssertionError(f"Limits' fields {LIMITS} are not the limits of SETTINGS")


def size(amount: int) -> str:
    for unit, bytes_ in (("GB", GB), ("MB", MB), ("KB", KB)):
        if amount >= bytes_:
            return f"{amount / bytes_:g}{unit}"
    return f"{amount} bytes"


def table(limits_only: bool) -> str:
    """The documentation's Markdown table: README.md's of the limits, AUTHORING.md's of every setting."""
    head = "| Limit | Default | Raise it with | Allowed |" if limits_only else "| Setting | What | Default |"
    rows = [head, "|" + " --- |" * head.count(" | ") + " --- |"]
    for s in SETTINGS:
        default = s.shown(s.default) + (" s" if s.grammar == "SECONDS" else "") if s.limit else "none"
        if limits_only and s.limit:
            rows.append(f"| {s.what} | {default} | `# snippet: {s.example}` | {s.allowed(machine=False)} |")
        elif not limits_only:
            rows.append(f"| `# snippet: {s.example}` | {s.what} | {default} |")
    return "\n".join(rows) + "\n"
