"""Confine the process that runs one snippet: what it may allocate, print, write and reach.

Called in the forked child (:mod:`snippet_runner.worker`) just before the snippet runs; every
limit dies with that child, so nothing here is ever undone.

* **Memory**: ``RLIMIT_AS``, the address space the child already has plus the snippet's allowance
  (``# snippet: memory 4GB``, default 3 GB), never more than the machine's RAM. An allocation past it
  fails inside the snippet (``MemoryError``, or torch's "can't allocate memory"), and the engine
  names the limit.
* **Output**: ``RLIMIT_FSIZE`` on the capture file, one byte past the allowance (``# snippet: output
  2MB``, default 1 MB), with ``SIGXFSZ`` ignored so a write past it fails instead of killing the
  process. It caps any file the snippet writes in its scratch folder the same way.
* **Writes**: the project, and everything else on disk, is read-only to the snippet; it may write in
  its own scratch folder (``tempfile.gettempdir()`` and ``$TMPDIR`` point there) and to ``/dev``
  (``/dev/null``, ``/dev/shm``). Enforced by the kernel with Landlock (the ``landlock`` package;
  Linux 5.13 and newer), so a write from C code is refused too. An audit hook in front of it turns
  a refused write from Python into a ``PermissionError`` that says why, instead of a bare EACCES.
* **Network**: an audit hook refuses ``connect``/``bind``/name lookups with a ``PermissionError``
  saying the build runs offline. (Landlock's network rules need Linux 6.7 and cover TCP only, and
  the ``landlock`` package does not offer them, so the hook is the mechanism here; C code that opens
  sockets itself would pass it.)

We looked at seccomp (``pyseccomp``): it filters system calls, not paths, so it cannot tell the
scratch folder from the project. Namespaces and bind mounts need privileges a reader may not have.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import tempfile
from pathlib import Path

try:  # imported here, in the worker, so a forked child does not pay for the import
    from landlock import FSAccess, Ruleset
except ImportError:  # not installed: the audit hook still refuses writes from Python
    FSAccess = Ruleset = None

WRITABLE_ALWAYS = ("/dev",)

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# audit events that change the file system, and which of their arguments are paths
_CHANGES = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
    "shutil.move": (0, 1),
    "shutil.copyfile": (1,),
}
_NETWORK = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"}


def confine(scratch: Path, memory: int, output: int) -> None:
    """Apply every limit to this process, for the rest of its life."""
    _limit_memory(memory)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (output + 1, output + 1))
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = str(scratch)
    sys.dont_write_bytecode = True  # a local module's .pyc would land in the project
    writable = (str(scratch), *WRITABLE_ALWAYS)
    sys.addaudithook(_Guard(writable))
    _landlock(writable)


def ram() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _limit_memory(memory: int) -> None:
    have = _address_space()
    ceiling = have + min(memory, int(ram() * 0.9))
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


def _address_space() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


class _Guard:
    """The audit hook: a readable refusal for writes outside the scratch folder, and for the network."""

    def __init__(self, writable: tuple[str, ...]):
        self.writable = tuple(os.path.realpath(p) for p in writable)

    def __call__(self, event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int | type(None)):
                return
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (flags or 0) & _WRITE_FLAGS:
                self._check(path)
        elif event in _CHANGES:
            for index in _CHANGES[event]:
                if index < len(args) and isinstance(args[index], str | bytes | os.PathLike):
                    self._check(args[index])
        elif event in _NETWORK:
            where = args[:2] if event == "socket.getaddrinfo" else args[1:2]
            raise PermissionError(f"snippets may not use the network ({event} {where}): the build runs offline")

    def _check(self, path) -> None:
        where = os.path.realpath(os.fsdecode(path))
        if not any(where == ok or where.startswith(ok + os.sep) for ok in self.writable):
            raise PermissionError(
                f"snippets may not write to {where}: everything outside the snippet's scratch folder is"
                " read-only while it runs; write under tempfile.gettempdir() instead"
            )


def _landlock(writable: tuple[str, ...]) -> None:
    if Ruleset is None:
        return
    changes = FSAccess.all() & ~(FSAccess.READ_FILE | FSAccess.READ_DIR | FSAccess.EXECUTE)
    try:
        ruleset = Ruleset(restrict_rules=changes)
    except OSError:  # a kernel without Landlock: the audit hook still refuses writes from Python
        return
    ruleset.allow(*writable)
    ruleset.apply()
