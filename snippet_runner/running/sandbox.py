"""Confine the process that runs one snippet: what it may allocate, print, write and reach.

Prepared once in the worker (:class:`Sandbox`) and applied in each forked child
(:mod:`snippet_runner.running.worker`) just before the snippet runs; every limit dies with that child, so
nothing here is ever undone.

* **Memory**: ``RLIMIT_AS``, the address space the child already has plus the snippet's allowance
  (``# snippet: memory 4GB``, default 3 GB), never more than the machine's RAM. An allocation past it
  fails inside the snippet (``MemoryError``, or torch's "can't allocate memory"), and the engine
  names the limit.
* **Output**: ``RLIMIT_FSIZE`` on the capture file, one byte past the allowance (``# snippet: output
  2MB``, default 1 MB), with ``SIGXFSZ`` ignored so a write past it fails instead of killing the
  process. It caps any file the snippet writes in its scratch folder the same way.
* **Writes**: the project, and everything else on disk, is read-only to the snippet; it may write in
  its own scratch folder (``tempfile.gettempdir()`` and ``$TMPDIR`` point there), to ``/dev/null``,
  ``/dev/zero`` and ``/dev/full``, and in ``/dev/shm`` (POSIX shared memory and semaphores: a
  ``multiprocessing.Lock``, torch's shared tensors). ``/dev/shm`` is shared by every process on
  the machine and is not emptied between snippets: a file a snippet leaves there on purpose can be
  read by a later one. (Removing what appeared there during a snippet's run was tried: it also
  removed files other programs made meanwhile, so it was taken out.) Nothing else under ``/dev``: it holds the
  machine's disks, and the build may run as root (CI does), where a snippet could otherwise create,
  remove or write device files. Enforced by the kernel with Landlock (the ``landlock`` package;
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

import ctypes
import os
import resource
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from snippet_runner.machine import physical_memory

try:  # imported here, in the worker, so a forked child does not pay for the import
    from landlock import FSAccess, Ruleset
    from landlock.plumbing import PR_SET_NO_NEW_PRIVS, SYSCALL_RESTRICT_SELF
except ImportError:  # not installed: the audit hook still refuses writes from Python
    FSAccess = Ruleset = None

_libc = ctypes.CDLL(None, use_errno=True)

WRITABLE_FOLDERS = ("/dev/shm",)  # beside the snippet's scratch folder
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")  # these files, nothing beside them

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


class Sandbox:
    """What confining a snippet needs that does not depend on the snippet, prepared once in the
    worker so that each forked child only applies it (about a millisecond less per snippet).

    One scratch folder serves every snippet of this worker: the worker empties it between snippets
    (:meth:`clean`), once the previous snippet's processes are all gone, and starts a new one if it
    cannot be emptied. A fixed folder is what lets the Landlock ruleset, which names the folder by
    its inode, be built once here; the child only calls ``landlock_restrict_self`` on it.
    """

    def __init__(self, inside: str | None = None) -> None:
        self._inside = inside  # where to make the scratch folder; None: the system's temporary folder
        self._make()

    def _make(self) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="snippet-", dir=self._inside))
        self._as_made = _owner(os.stat(self.scratch))
        folders = (str(self.scratch), *(f for f in WRITABLE_FOLDERS if os.path.isdir(f)))
        devices = tuple(d for d in WRITABLE_DEVICES if os.path.exists(d))
        self._guard = _Guard(folders + devices)
        self._ruleset_fd = _ruleset(folders, devices)

    def confine(self, memory: int, output: int) -> None:
        """Apply every limit to this (forked) process, for the rest of its life."""
        _limit_memory(memory)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (output + 1, output + 1))
        os.environ["TMPDIR"] = str(self.scratch)
        tempfile.tempdir = str(self.scratch)
        sys.dont_write_bytecode = True  # a local module's .pyc would land in the project
        sys.addaudithook(self._guard)
        if self._ruleset_fd is not None:
            _restrict_self(self._ruleset_fd)
            # The snippet must not hold the worker's ruleset: rules it added would bind the next child.
            os.close(self._ruleset_fd)

    def clean(self) -> None:
        """Empty the scratch folder for the next snippet; call it only once no process of the
        last one is left. The usual case, nothing left, costs two system calls. A folder that
        cannot be put back as it was (its mode changed, an entry that will not go) is replaced."""
        try:
            if not os.listdir(self.scratch) and _owner(os.stat(self.scratch)) == self._as_made:
                return
            for entry in os.scandir(self.scratch):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
            if not os.listdir(self.scratch) and _owner(os.stat(self.scratch)) == self._as_made:
                return
        except OSError:
            pass
        self.close()
        self._make()

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
        if self._ruleset_fd is not None:
            os.close(self._ruleset_fd)
            self._ruleset_fd = None


def _owner(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_mode, st.st_uid, st.st_gid


def _limit_memory(memory: int) -> None:
    have = _address_space()
    ceiling = have + min(memory, int(physical_memory() * 0.9))
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _address_space() -> int:
    """VmSize, from ``/proc/self/statm`` (its first field, in pages): the kernel formats that file
    in microseconds, where ``/proc/self/status`` takes about 0.2 ms."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        return int(os.read(fd, 256).split()[0]) * _PAGE
    finally:
        os.close(fd)


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


def _ruleset(folders: tuple[str, ...], devices: tuple[str, ...]) -> int | None:
    """A Landlock ruleset that makes everything read-only but ``folders`` (anything may change in
    them) and the files ``devices`` (they may be written), as a file descriptor; None on a kernel
    without Landlock (the audit hook still refuses writes from Python)."""
    if Ruleset is None:
        return None
    ctypes.set_errno(0)  # the landlock package reads errno even when a call succeeded
    try:
        changes = FSAccess.all() & ~(FSAccess.READ_FILE | FSAccess.READ_DIR | FSAccess.EXECUTE)
        ruleset = Ruleset(restrict_rules=changes)
        ruleset.allow(*folders)
        # a rule on a file may grant only the rights that apply to files
        ruleset.allow(*devices, rules=changes & (FSAccess.WRITE_FILE | FSAccess.TRUNCATE | FSAccess.IOCTL_DEV))
    except OSError:
        return None
    return ruleset._fd


def _restrict_self(ruleset_fd: int) -> None:
    """What ``Ruleset.apply`` does, on a ruleset built earlier in the worker. A failure here must
    stop the child, never let the snippet run unconfined."""
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if _libc.syscall(SYSCALL_RESTRICT_SELF, ruleset_fd, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
