"""Confine the process that runs one snippet: what it may read, write, reach, start and leave behind.

A snippet is a stranger's pull request. It may reach only its own: an empty stdin, one capture file as stdout and
stderr, its folder (read-only), its scratch folder, its ``/dev/shm`` and its own processes; nothing of the worker, the
build or the machine. Prepared in the worker (:class:`Sandbox`), applied in each forked child. From the outside in (the
full table, with where each holds: ``dev/decisions/0007-the-trust-boundary.md``):

* **Environment**: an allowlist (:func:`worker_environment`); ``HOME`` and ``TMPDIR`` are scratch.
* **The worker's namespaces** (:func:`isolate_worker`): a user namespace mapping only the build's
  uid; a network namespace with no interface up; an IPC namespace; a mount namespace with an empty
  ``/run`` and a ``/dev`` of :data:`DEVICES` and ``shm``; a PID namespace whose init is the worker.
* **Per run**: a PID namespace whose init is the snippet, so the kernel kills all it started
  when it ends, with its own ``/proc``; an IPC namespace (its System V objects die with it); a
  fresh session keyring; a mount namespace where :data:`HIDDEN` are empty but for what it may
  read (no named UNIX socket there); tmpfs mounts for scratch (``disk``) and ``/dev/shm`` (``shm``).
* **Landlock**: reads only :func:`_readable` and its folder, writes only scratch, ``/dev/shm`` and
  :data:`WRITABLE_DEVICES`; no TCP (ABI 4), no signal or abstract socket outside (scopes, ABI 6).
* **seccomp**: sockets but TCP/IP's, datagram ``socketpair``, io_uring, keyrings, new namespaces
  and the other calls torch does not need fail (:func:`isolation.filter_system_calls`); Landlock
  does not cover ``connect`` to a named UNIX socket. Then capabilities are dropped.
* **Descriptors**: 0 is ``/dev/null``, 1 and 2 the capture; every other is closed before its code.
* **Limits**: processes and threads by a pids cgroup (else ``RLIMIT_NPROC``); memory of every
  kind, tmpfs files included, by a memory cgroup (else ``RLIMIT_AS``, less ``disk`` and ``shm``);
  output by ``RLIMIT_FSIZE``, one byte past its allowance (``SIGXFSZ`` ignored).

The build records what the worker sees once the child is gone (:meth:`Sandbox.limits_hit`); the child's own account is a
size-capped, schema-checked file (:meth:`Sandbox.report`). Where a mechanism is missing, the rest holds and
:attr:`Isolation.off` says what is off; the build prints it, and ``tests/builds/test_safety.py`` fails unless
``SNIPPETS_SANDBOX_MAY_BE_WEAKER=1``.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from snippet_runner.machine import physical_memory
from snippet_runner.running import isolation, protocol
from snippet_runner.running.settings import Limits

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
    **dict.fromkeys(("os.remove", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod", "os.chown", "os.utime"), (0,)),
    **dict.fromkeys(("os.rename", "os.link", "shutil.move"), (0, 1)),
    **dict.fromkeys(("os.symlink", "shutil.copyfile"), (1,)),
    "shutil.rmtree": (0,),
}
_NETWORK = {"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo"}
_TMPFS_INODE = 4096  # one inode for each page of a tmpfs' size: a flood of empty files fills it too


def worker_environment(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A worker's environment: the allowlist, the locale, and what the build sets in ``extra``; its
    PATH ends with the system's folders (``os.defpath``), which a build's PATH under ``/tmp`` (hidden
    from snippets) may lack, so a snippet finds ``sleep`` wherever the build runs."""
    env = {k: v for k, v in os.environ.items() if k in ENVIRONMENT or k.startswith("LC_")}
    env = {**env, "HOME": home, "TMPDIR": home, "OPENBLAS_NUM_THREADS": "1", **(extra or {})}
    path = [*env.get("PATH", "").split(os.pathsep), *os.defpath.split(os.pathsep)]
    return {**env, "PATH": os.pathsep.join(dict.fromkeys(p for p in path if p))}


@dataclass
class Isolation:
    """What the worker entered once, for all its children, and what it could not."""

    namespaces: bool = False  # user, network, mount and PID namespaces
    cgroup: isolation.PidsCgroup | None = None
    memory: isolation.MemoryCgroup | None = None  # else RLIMIT_AS, which counts address space
    nproc: bool = False  # RLIMIT_NPROC limits the snippet's processes (not root, in its user namespace)
    landlock: int = 0  # the Landlock ABI
    seccomp: bool = False  # a seccomp filter can refuse sockets and calls
    off: list[str] = field(default_factory=list)
    pid_namespace: int | None = None  # the worker's own PID namespace, to return to after each fork


def isolate_worker() -> Isolation:
    """Enter, once and single-threaded, what the worker's snippets share. With namespaces the caller waits
    as the pool's stand-in and its child, a PID namespace's init, goes on as the worker: one kill ends all."""
    done = Isolation(landlock=isolation.landlock_abi(), seccomp=isolation.seccomp_available())
    if done.seccomp:
        isolation.filter_program()  # assembled once, here: each child only loads it
    try:
        done.cgroup = isolation.PidsCgroup.join(os.getpid())
    except (OSError, ValueError) as error:  # ValueError: a /proc/self/cgroup or mountinfo we cannot read
        cgroup_error = getattr(error, "strerror", None) or str(error)
    try:
        done.memory = isolation.MemoryCgroup.make(os.getpid())
    except (OSError, ValueError) as error:
        done.off.append(
            f"no memory cgroup ({getattr(error, 'strerror', None) or error}): a snippet's memory is limited by its"
            " address space, which System V shared memory it detached is not in, and a CUDA torch cannot load in"
        )
    isolation.join_new_session_keyring()  # the build's session keyring (where CI may keep a key): not ours
    try:
        namespaces = isolation.CLONE_NEWNS | isolation.CLONE_NEWNET | isolation.CLONE_NEWPID | isolation.CLONE_NEWIPC
        isolation.enter_user_namespace(namespaces)
        isolation.mount(None, "/", None, isolation.MS_REC | isolation.MS_PRIVATE)
        if os.path.isdir("/run"):
            isolation.mount_tmpfs("/run", 4096, 16, 0o755)
        done.namespaces = True
    except OSError as error:
        done.off.append(
            f"no user namespace ({error}): snippets may reach the network over UDP, their files in"
            " /dev/shm outlive them (and System V objects), their scratch disk and shared memory are not"
            " limited, and they see the machine's processes, System V objects and named UNIX sockets"
        )
    if done.namespaces:
        _stand_in(os.fork())
        done.pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    done.nproc = done.cgroup is None and done.namespaces and os.geteuid() != 0
    if done.cgroup is None and not done.nproc:
        done.off.append(f"no pids cgroup ({cgroup_error}): the number of processes a snippet starts is not limited")
    if done.landlock < 1:
        done.off.append("no Landlock: snippets may read any file the build's user can, and write outside scratch")
    elif done.landlock < 6 and not done.namespaces:
        done.off.append(f"Landlock ABI {done.landlock} (< 6): snippets may signal the build's processes")
    if not done.seccomp:
        done.off.append(
            "no seccomp filter: snippets may connect to a named UNIX socket in a folder they can see, and use"
            " io_uring, kernel keyrings, vsock, netlink, bpf, perf events and other calls torch does not need"
        )
    return done


def _stand_in(pid: int) -> None:
    """The parent holds nothing, waits and ends as the worker did; the worker dies with it (the pool kills it)."""
    if pid == 0:
        if isolation.libc.prctl(1, signal.SIGKILL, 0, 0, 0) != 0:  # PR_SET_PDEATHSIG
            raise OSError("prctl(PR_SET_PDEATHSIG) failed")
        return
    os.closerange(3, 1 << 20)
    for fd in (0, 1):
        os.close(fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the worker's to handle
    status = os.waitpid(pid, 0)[1]
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


REPORT = ".snippet-runner-report.json"  # the child's account of its run, in its scratch folder
REPORT_LIMIT = 4 * 1024**2  # bytes of it the worker reads; a longer one is discarded
HIDDEN = ("/tmp", "/var/tmp", "/root", "/home", "/mnt", "/media", "/srv")  # where sockets live


class Sandbox:
    """What confining a snippet needs, made in the worker, so each forked child only applies it. With namespaces, each
    run's tmpfs is mounted on the scratch folder, inside a read-only tmpfs that carries the Landlock rule (Landlock
    ignores a rule on a mount point); without, one real folder is emptied between snippets (:meth:`release`)."""

    def __init__(self, inside: str | None, isolated: Isolation) -> None:
        self._inside = inside  # where to make the scratch folder; None: the system's temporary folder
        self.isolated = isolated
        self._tasks = 0  # the worker's threads, when RLIMIT_NPROC counts the snippet's processes
        self._refused = 0  # the cgroup's refused forks before the next child
        self._killed = 0  # the memory cgroup's OOM kills before the next child
        self._mounted: list[str] = []
        self._readable = [os.path.realpath(p) for p in _readable() if os.path.exists(p)]  # worked out once
        self._hidden = [p for p in HIDDEN if os.path.isdir(p) and not os.path.islink(p)]
        self._make()

    def _make(self) -> None:
        self._root = tempfile.mkdtemp(prefix="snippet-", dir=self._inside)
        if self.isolated.namespaces:
            self.scratch = Path(self._root) / "scratch"
            self._reports = Path(self._root) / "report"  # a tmpfs of its own: a full scratch folder fills not it
            _private_dev_and_scratch(self._root)
        else:
            self.scratch = self._reports = Path(self._root)
        self._as_made = _owner(os.stat(self.scratch))
        writable = (str(self.scratch), str(self._reports), "/dev/shm", *WRITABLE_DEVICES)
        self._guard = _Guard(tuple(p for p in writable if os.path.exists(p)))

    def prepare(self, limits: Limits) -> None:
        """In the worker, just before it forks the child that runs a snippet."""
        if self.isolated.namespaces:
            folders = ((str(self.scratch), limits.disk, 0o700), ("/dev/shm", limits.shm, 0o1777))
            for path, size, mode in (*folders, (str(self._reports), REPORT_LIMIT, 0o700)):
                isolation.mount_tmpfs(path, size, max(size // _TMPFS_INODE, 16), mode)
                self._mounted.append(path)
        if self.isolated.memory is not None:
            self._killed = self.isolated.memory.kills()
        if self.isolated.cgroup is not None:
            self.isolated.cgroup.set_max(self.isolated.cgroup.current() + limits.processes)
            self._refused = self.isolated.cgroup.refusals()
        elif self.isolated.nproc:
            self._tasks = len(os.listdir("/proc/self/task"))

    def fork(self) -> int:
        """``os.fork``, the child the init of a new PID namespace where the worker has one."""
        ns = self.isolated.pid_namespace
        if ns is None:
            return os.fork()
        isolation.unshare(isolation.CLONE_NEWPID)
        pid = -1
        try:
            pid = os.fork()
        finally:
            if pid != 0:  # the worker: its next unshare needs its own namespace back
                isolation.setns(ns, isolation.CLONE_NEWPID)
        return pid

    def confine(self, path: str, limits: Limits) -> None:
        """Apply every limit to this (forked) process, for the rest of its life."""
        folder, memory, output = os.path.dirname(path), limits.memory, limits.output
        if self.isolated.memory is not None:  # first: every page it touches from here on counts, of any kind
            self.isolated.memory.enter(memory)
        if self.isolated.namespaces:
            isolation.unshare(isolation.CLONE_NEWNS | isolation.CLONE_NEWIPC)
            _hide(self._hidden, keep=sorted({*self._readable, os.path.realpath(folder), self._root}))
            isolation.mount("proc", "/proc", "proc", isolation.MS_NOSUID | isolation.MS_NODEV | isolation.MS_NOEXEC)
            for listing in ("/proc/keys", "/proc/key-users"):  # the names of the build user's keys: not its
                if os.path.exists(listing):
                    isolation.mount("/dev/null", listing, None, isolation.MS_BIND)
            memory = max(memory - limits.disk - limits.shm, 0)  # its tmpfs folders are kept in memory
        if self.isolated.memory is None:
            _limit_memory(memory)
        isolation.join_new_session_keyring()
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (output + 1, max(output + 1, REPORT_LIMIT)))
        if self.isolated.nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (self._tasks + limits.processes,) * 2)
        os.environ["TMPDIR"] = os.environ["HOME"] = str(self.scratch)
        tempfile.tempdir = str(self.scratch)
        sys.dont_write_bytecode = True  # a local module's .pyc would land in the project
        sys.addaudithook(self._guard)
        if self.isolated.landlock:
            ruleset = self._ruleset(folder)
            isolation.restrict_self(ruleset)
            os.close(ruleset)
        if self.isolated.seccomp:
            isolation.filter_system_calls()
        if self.isolated.namespaces:
            isolation.drop_capabilities()

    def write_report(self, report: protocol.SelfReport) -> None:
        """In the child, once the snippet has run: its account of the run, for :meth:`report`."""
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        data = protocol.dumps(report).encode()
        os.chmod(self._reports, 0o700)  # the snippet may have locked it
        with open(self._reports / REPORT, "wb") as out:  # the snippet may write there too: untrusted
            out.write(data)

    def report(self) -> protocol.SelfReport | None:
        """Once the child is gone, its account: a regular file of at most ``REPORT_LIMIT``, or None;
        ``ProtocolError`` (naming the field) if it is not a ``SelfReport`` of the exact schema."""
        try:
            fd = os.open(self._reports / REPORT, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = os.read(fd, REPORT_LIMIT + 1)
        finally:
            os.close(fd)
        report = protocol.loads(data, protocol.SelfReport) if len(data) <= REPORT_LIMIT else None
        return report if isinstance(report, protocol.SelfReport) else None

    def limits_hit(self) -> tuple[str, ...]:
        """In the worker, once the child is gone: which of its limits it ran into."""
        hit = []
        if self.isolated.cgroup is not None and self.isolated.cgroup.refusals() > self._refused:
            hit.append("processes")
        if self.isolated.memory is not None and self.isolated.memory.kills() > self._killed:
            hit.append("memory")
        if self.isolated.namespaces:
            for name, path in (("disk", str(self.scratch)), ("shm", "/dev/shm")):
                st = os.statvfs(path)
                if st.f_bavail == 0 or st.f_favail == 0:
                    hit.append(name)
        return tuple(hit)

    def release(self) -> None:
        """Once the snippet is gone: unmount its folders, or empty scratch (replaced if it cannot be)."""
        while self._mounted:
            isolation.unmount(self._mounted.pop())
        if self.isolated.namespaces:
            return
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.scratch):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
            if not os.listdir(self.scratch) and _owner(os.stat(self.scratch)) == self._as_made:
                return
        self.close()
        self._make()

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)

    def _ruleset(self, folder: str) -> int:
        """The Landlock ruleset for a snippet in ``folder``; raises rather than run the snippet without it."""
        abi = self.isolated.landlock
        every = isolation.fs_rights(abi)
        fd = isolation.create_ruleset(abi, every)
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


def _hide(folders: list[str], keep: list[str]) -> None:
    """In the child's mount namespace: cover each of ``folders`` with an empty read-only tmpfs and
    bind back only the real paths of ``keep`` beneath it (through a descriptor opened before)."""
    for folder in folders:
        if any(folder == p or folder.startswith(p + "/") for p in keep):
            continue  # it is itself something to keep
        below = [p for p in keep if p.startswith(folder + "/")]
        below = [p for p in below if not any(p.startswith(q + "/") for q in below)]
        old = os.open(folder, os.O_PATH | os.O_DIRECTORY)
        try:
            isolation.mount_tmpfs(folder, 1 << 20, 1024, 0o755)
            for path in below:
                source = f"/proc/self/fd/{old}/{os.path.relpath(path, folder)}"
                if os.path.isdir(source):
                    os.makedirs(path, exist_ok=True)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    open(path, "w").close()
                isolation.mount(source, path, None, isolation.MS_BIND | isolation.MS_REC)
            flags = isolation.MS_NOSUID | isolation.MS_NODEV | isolation.MS_RDONLY
            isolation.mount(None, folder, None, isolation.MS_BIND | isolation.MS_REMOUNT | flags)
        finally:
            os.close(old)


def _readable() -> list[str]:
    """What any snippet may read: Python (venv and base), this package, the system's libraries, some of /etc."""
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [*sorted(python), _PACKAGE_DIR, *SYSTEM, *SYSFS, *(f"/etc/{name}" for name in ETC)]


def _private_dev_and_scratch(root: str) -> None:
    """In the worker's mount namespace: a read-only tmpfs at ``root`` with scratch's mount point and a small /dev."""
    isolation.mount_tmpfs(root, 1 << 16, 64, 0o755)
    os.mkdir(os.path.join(root, "scratch"), 0o700)
    os.mkdir(os.path.join(root, "report"), 0o700)
    dev = os.path.join(root, "dev")
    os.mkdir(dev)
    os.mkdir(os.path.join(dev, "shm"))
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            open(os.path.join(dev, name), "w").close()
            isolation.mount(f"/dev/{name}", os.path.join(dev, name), None, isolation.MS_BIND)
    isolation.mount(dev, "/dev", None, isolation.MS_BIND | isolation.MS_REC)
    for path in ("/dev", root):
        isolation.mount(None, path, None, isolation.MS_BIND | isolation.MS_REMOUNT | isolation.MS_RDONLY)


def _owner(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_mode, st.st_uid, st.st_gid


def _limit_memory(memory: int) -> None:
    """RLIMIT_AS: the child's address space (from ``statm``, far shorter to format than ``status``) plus ``memory``."""
    with open("/proc/self/statm", "rb") as statm:
        have = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    ceiling = have + min(memory, int(physical_memory() * 0.9))
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


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
