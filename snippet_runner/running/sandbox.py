"""Confine the process that runs one snippet: what it may read, write, reach, start and leave behind.

A snippet is a stranger's pull request. While it runs it learns nothing of the build (its
environment, the user's files, the project's ``.git``), reaches no address, exhausts nothing, and
leaves nothing once its process is gone. What holds it, from the outside in:
Prepared once in the worker (:class:`Sandbox`) and applied in each forked child
(:mod:`snippet_runner.running.worker`) just before the snippet runs.

* **Environment**: the worker is started with a short allowlist (:func:`worker_environment`), never
  the build's variables, so neither ``os.environ`` nor ``/proc/self/environ`` holds a secret;
  ``HOME`` and ``TMPDIR`` point at the snippet's scratch folder.
* **Namespaces, entered once by the worker** (:func:`isolate_worker`, first thing, while it is
  still single-threaded, as ``unshare(CLONE_NEWUSER)`` requires): a user namespace that maps only
  the build's own uid, so the snippet's capabilities (root's too, in CI) reach nothing outside it;
  a network namespace with no interface up, so no code, Python or C, reaches any address, the
  loopback included; a mount namespace in which ``/run`` (where system daemons keep their UNIX
  sockets, which cross network namespaces) is an empty folder and ``/dev`` holds only
  ``null``, ``zero``, ``full``, ``random``, ``urandom`` and ``shm``. Every forked child inherits
  all of it for nothing.
* **Per snippet, in the child** (:meth:`Sandbox.confine`): a mount namespace of its own with two
  fresh tmpfs, its scratch folder (``# snippet: disk 1GB``, default 256 MB, all files together)
  and ``/dev/shm`` (``# snippet: shm 256MB``, default 64 MB). They vanish with the child: nothing
  it writes outlives it, and no snippet sees another's (or another program's) shared memory.
* **Landlock** (ABI 1 to 7), one ruleset per snippet folder built once in the worker and entered
  by the child: it reads only the Python installation, the system's libraries (``/usr``,
  ``/lib``), a few files of ``/etc`` (:data:`ETC`), ``/proc``, the CPU topology in ``/sys``, its
  own folder (a local module beside it) and its scratch folder; it writes only the scratch
  folder, ``/dev/shm`` and ``/dev/null`` and its like. TCP ``bind``/``connect`` are refused (ABI
  4), and the scopes (ABI 6) stop it signalling, or reaching through an abstract UNIX socket, any
  process outside the sandbox. Landlock also denies it ``ptrace`` and ``/proc/<pid>/environ`` of
  the build, and ``mount``/``umount``, so it cannot uncover what the mounts hide. Capabilities
  are then dropped (``no_new_privs`` keeps an ``execve`` from giving them back).
* **Processes and threads** (``# snippet: processes 256``, default 128, its own process
  included): a pids cgroup the worker joins once (:class:`~snippet_runner.running.isolation.PidsCgroup`;
  ``pids.max`` is set before each fork, so the children are in it at no cost), which holds for
  root too. Where the cgroup cannot be made (an ordinary user, cgroup v1), ``RLIMIT_NPROC``,
  which in the worker's own user namespace counts only the worker's processes; it does not apply
  to root, which is why root needs the cgroup.
* **Memory**: ``RLIMIT_AS``, the address space the child already has plus the snippet's allowance
  (``# snippet: memory 4GB``, default 3 GB), never more than the machine's RAM.
* **Output**: ``RLIMIT_FSIZE`` on the capture file, one byte past the allowance (``# snippet: output
  2MB``, default 1 MB), with ``SIGXFSZ`` ignored so a write past it fails instead of killing the
  process. It caps any single file the snippet writes the same way.
* An audit hook turns a refused write or connection from Python into a ``PermissionError`` that
  says why, instead of a bare ``EACCES``.

A limit it runs into is named in the build's error with the setting that raises it: the child
reports what filled up (:meth:`Sandbox.limits_hit`), the engine words it.

Where a mechanism is missing (no unprivileged user namespaces, no Landlock, no cgroup as root),
the rest still holds, and :attr:`Isolation.off` says what is off and why; the build prints it
once, and ``tests/builds/test_safety.py`` fails if anything is (``SNIPPETS_SANDBOX_MAY_BE_WEAKER=1`` excepted).

**What we weighed.** bubblewrap (Debian's ``bubblewrap``) sets up the same namespaces and mounts,
but as a program: it would have to start each snippet's process, which then imports torch again
(1.7 s), or start the worker, and then it cannot give each forked child its own tmpfs; the
system calls it makes are few enough to make here (:mod:`snippet_runner.running.isolation`). A dedicated
unprivileged user inside the fork needs a second uid mapped into the user namespace, which only
root can do (``newuidmap`` is setuid), and every file the snippet needs readable by that user;
Landlock's read rules give the same protection to root and to an ordinary user alike. seccomp
(``pyseccomp``) filters system calls, not paths. A pid namespace per snippet would hide the
build's processes, but Landlock already keeps the snippet from signalling or tracing them, and it
would cost an ``unshare`` and a ``setns`` in the worker per fork. Per snippet the child pays for
one ``unshare(CLONE_NEWNS)`` and two mounts (well under a millisecond), and its mount namespace's
teardown at exit; everything else is done once per worker.

**Left open.** A named UNIX socket outside ``/run`` that the build's user may write to can still
be connected to (Landlock 6.18 does not cover named sockets; a later ABI does). Without user
namespaces, a file left in the real ``/dev/shm`` outlives the snippet, and UDP is not refused.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner.machine import physical_memory
from snippet_runner.running import isolation

_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)  # snippet_runner/

# Readable by every snippet, beside the Python installation, its folder and its scratch folder.
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/proc")
SYSFS = ("/sys/devices/system/cpu", "/sys/devices/system/node")  # what thread pools size themselves by
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "nsswitch.conf", "passwd", "group")
DEVICES = ("null", "zero", "full", "random", "urandom")  # the whole of /dev a snippet sees, with shm/
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
# The environment a worker (and so every snippet) gets from the build; everything else is dropped.
ENVIRONMENT = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONHASHSEED", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

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
_TMPFS_INODE = 4096  # one inode for each page of a tmpfs' size: a flood of empty files fills it too
_MS_BIND, _MS_REMOUNT, _MS_RDONLY = 4096, 32, 1


# How the worker allocates memory, for cheaper forks (running/worker.py, _arenas_from_malloc and
# _HugePages): glibc asks for transparent huge pages for what malloc takes from the system, and keeps
# every block under 32 MB in its heap (which is in huge pages) instead of a mapping of its own
# (which is not, under 2 MB). So what torch's import and warm-up allocate in C++, and Python's
# object arenas, which the worker takes from malloc too, sit in 2 MB pages from the start.
# (PYTHONMALLOC=malloc would put every object there too, but made torch's import and warm-up slower
# than the forks saved.) Read once, when the worker starts, and then removed from its environment:
# no snippet sees it.
FOR_FORKING = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432"}


def worker_environment(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment to start a worker with: the allowlist, the locale, how it allocates
    (:data:`FOR_FORKING`), and ``extra`` (what the build itself sets for the worker:
    ``PYTHONHASHSEED``, ``PYTHONPATH``)."""
    env = {k: v for k, v in os.environ.items() if k in ENVIRONMENT or k.startswith("LC_")}
    return {**env, "HOME": home, "TMPDIR": home, "OPENBLAS_NUM_THREADS": "1", **FOR_FORKING, **(extra or {})}


@dataclass
class Isolation:
    """What the worker entered once, for all its children, and what it could not."""

    namespaces: bool = False  # user, network and mount namespaces
    cgroup: isolation.PidsCgroup | None = None
    nproc: bool = False  # RLIMIT_NPROC limits the snippet's processes (not root, in its user namespace)
    landlock: int = 0  # the Landlock ABI
    off: list[str] = field(default_factory=list)


def isolate_worker() -> Isolation:
    """Enter, once, what every snippet of this worker shares. Call it first thing in the worker,
    while it has a single thread."""
    done = Isolation(landlock=isolation.landlock_abi())
    try:
        done.cgroup = isolation.PidsCgroup.join(os.getpid())
    except (OSError, ValueError) as error:  # ValueError: a /proc/self/cgroup or mountinfo we cannot read
        cgroup_error = getattr(error, "strerror", None) or str(error)
    try:
        isolation.enter_user_namespace(isolation.CLONE_NEWNS | isolation.CLONE_NEWNET)
        isolation.mount(None, "/", None, isolation.MS_REC | isolation.MS_PRIVATE)
        if os.path.isdir("/run"):
            isolation.mount_tmpfs("/run", 4096, 16, 0o755)
        done.namespaces = True
    except OSError as error:
        done.off.append(
            f"no user namespace ({error}): snippets may reach the network over UDP, their files in"
            " /dev/shm outlive them, and their scratch disk and shared memory are not limited"
        )
    done.nproc = done.cgroup is None and done.namespaces and os.geteuid() != 0
    if done.cgroup is None and not done.nproc:
        done.off.append(f"no pids cgroup ({cgroup_error}): the number of processes a snippet starts is not limited")
    if done.landlock < 1:
        done.off.append("no Landlock: snippets may read any file the build's user can, and write outside scratch")
    elif done.landlock < 6 and not done.namespaces:
        done.off.append(f"Landlock ABI {done.landlock} (< 6): snippets may signal the build's processes")
    return done


class Sandbox:
    """What confining a snippet needs that does not depend on the snippet, prepared once in the
    worker, so that each forked child only applies it.

    With namespaces, the scratch folder is an empty mount point on a read-only tmpfs (its parent,
    on which the Landlock rule sits: Landlock ignores a rule on a folder something is mounted on),
    and each child mounts its own tmpfs there. Without, one real folder serves every snippet of
    this worker, emptied between snippets (:meth:`clean`).
    """

    def __init__(self, inside: str | None = None, isolated: Isolation | None = None) -> None:
        self._inside = inside  # where to make the scratch folder; None: the system's temporary folder
        self.isolated = isolated or Isolation(landlock=isolation.landlock_abi())
        self._rulesets: dict[str, int] = {}  # snippet folder -> its Landlock ruleset
        self._ruleset_fd: int | None = None  # the next child's
        self._tasks = 0  # the worker's threads, when RLIMIT_NPROC counts the snippet's processes
        self._refused = 0  # the cgroup's refused forks before the next child
        self._make()

    def _make(self) -> None:
        self._root = tempfile.mkdtemp(prefix="snippet-", dir=self._inside)
        if self.isolated.namespaces:
            self.scratch = Path(self._root) / "scratch"
            _private_dev_and_scratch(self._root)
        else:
            self.scratch = Path(self._root)
        self._as_made = _owner(os.stat(self.scratch))
        writable = (str(self.scratch), "/dev/shm", *WRITABLE_DEVICES)
        self._guard = _Guard(tuple(p for p in writable if os.path.exists(p)))

    def prepare(self, path: str, processes: int) -> None:
        """In the worker, just before it forks the child that runs the snippet at ``path``."""
        folder = os.path.dirname(path)
        self._ruleset_fd = self._rulesets.get(folder)
        if self._ruleset_fd is None and self.isolated.landlock:
            self._ruleset_fd = self._rulesets[folder] = self._ruleset(folder)
        if self.isolated.cgroup is not None:
            self.isolated.cgroup.set_max(self.isolated.cgroup.current() + processes)
            self._refused = self.isolated.cgroup.refusals()
        elif self.isolated.nproc:
            self._tasks = len(os.listdir("/proc/self/task"))

    def confine(self, memory: int, output: int, processes: int, disk: int, shm: int) -> None:
        """Apply every limit to this (forked) process, for the rest of its life."""
        if self.isolated.namespaces:
            isolation.unshare(isolation.CLONE_NEWNS)
            isolation.mount_tmpfs(str(self.scratch), disk, max(disk // _TMPFS_INODE, 16), 0o700)
            isolation.mount_tmpfs("/dev/shm", shm, max(shm // _TMPFS_INODE, 16), 0o1777)
        _limit_memory(memory)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (output + 1, output + 1))
        if self.isolated.nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (self._tasks + processes,) * 2)
        if self.isolated.cgroup is not None:
            self.isolated.cgroup.close_limit()  # the snippet must not raise its own limit
        os.environ["TMPDIR"] = os.environ["HOME"] = str(self.scratch)
        tempfile.tempdir = str(self.scratch)
        sys.dont_write_bytecode = True  # a local module's .pyc would land in the project
        sys.addaudithook(self._guard)
        for fd in self._rulesets.values():
            if fd != self._ruleset_fd:
                os.close(fd)  # rules the snippet added to another folder's would bind a later child
        if self._ruleset_fd is not None:
            isolation.restrict_self(self._ruleset_fd)
            os.close(self._ruleset_fd)
        if self.isolated.namespaces:
            isolation.drop_capabilities()

    def limits_hit(self) -> tuple[str, ...]:
        """In the child, once the snippet has run: which of its limits it ran into."""
        hit = []
        cgroup = self.isolated.cgroup
        if cgroup is not None and cgroup.refusals() > self._refused:
            hit.append("processes")
        if self.isolated.namespaces:
            for name, path in (("disk", str(self.scratch)), ("shm", "/dev/shm")):
                st = os.statvfs(path)
                if st.f_bavail == 0 or st.f_favail == 0:
                    hit.append(name)
        return tuple(hit)

    def clean(self) -> None:
        """Empty the scratch folder for the next snippet; call it only once no process of the
        last one is left. With namespaces there is nothing to do: the child's tmpfs went with it.
        Otherwise the usual case, nothing left, costs two system calls. A folder that cannot be
        put back as it was (its mode changed, an entry that will not go) is replaced."""
        if self.isolated.namespaces:
            return
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
        shutil.rmtree(self._root, ignore_errors=True)
        for fd in self._rulesets.values():
            os.close(fd)
        self._rulesets.clear()

    def _ruleset(self, folder: str) -> int:
        """The Landlock ruleset for a snippet in ``folder``. A kernel that offers Landlock and
        refuses it raises: the snippet must not run without it."""
        abi = self.isolated.landlock
        every = isolation.fs_rights(abi)
        fd = isolation.create_ruleset(abi, every, net=True, scoped=True)
        try:
            for path in (*_readable(), folder):
                if os.path.exists(path):
                    isolation.allow_beneath(fd, path, isolation.FS_READ)
            if self.isolated.namespaces:
                isolation.allow_beneath(fd, self._root, every)  # the scratch folder's tmpfs, beneath
                isolation.allow_beneath(fd, "/dev", every)  # read-only, but for /dev/shm and the devices
            else:
                for path in (str(self.scratch), "/dev/shm", "/dev/random", "/dev/urandom", *WRITABLE_DEVICES):
                    if os.path.exists(path):
                        isolation.allow_beneath(fd, path, every if os.path.isdir(path) else isolation.FS_FILE_RIGHTS)
        except OSError:
            os.close(fd)
            raise
        return fd


def _readable() -> list[str]:
    """The Python installation (a virtual environment and the interpreter it was made from), this
    package (the worker's own modules, imported lazily), the system's libraries and a few files
    of ``/etc``: what any snippet may read."""
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [*sorted(python), _PACKAGE_DIR, *SYSTEM, *SYSFS, *(f"/etc/{name}" for name in ETC)]


def _private_dev_and_scratch(root: str) -> None:
    """In the worker's own mount namespace: ``root`` becomes a read-only tmpfs holding the
    scratch folder's mount point and a small ``/dev``, which replaces the real one."""
    isolation.mount_tmpfs(root, 1 << 16, 64, 0o755)
    os.mkdir(os.path.join(root, "scratch"), 0o700)
    dev = os.path.join(root, "dev")
    os.mkdir(dev)
    os.mkdir(os.path.join(dev, "shm"))
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            open(os.path.join(dev, name), "w").close()
            isolation.mount(f"/dev/{name}", os.path.join(dev, name), None, _MS_BIND)
    isolation.mount(dev, "/dev", None, _MS_BIND | isolation.MS_REC)
    isolation.mount(None, "/dev", None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY)
    isolation.mount(None, root, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY)


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
