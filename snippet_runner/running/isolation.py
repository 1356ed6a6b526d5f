"""The kernel's isolation mechanisms, as :mod:`snippet_runner.running.sandbox` uses them: namespaces, tmpfs mounts, a
Landlock ruleset with network rules and scopes, a seccomp filter, a pids cgroup, capabilities.

Each call is a system call or a few, through ``ctypes``: 3.11's ``os`` has no ``unshare``, ``mount`` or ``capset``; the
``landlock`` package (pinned) has no network rules or scopes, so only its constants are used; and the seccomp bindings
load the system's ``libseccomp.so.2``, which pip cannot pin, so the filter is classic BPF written here. Policy (paths,
limits, what to do when a mechanism is missing) is the sandbox's.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import struct
import time

try:
    from landlock.plumbing import PR_SET_NO_NEW_PRIVS, SYSCALL_ADD_RULE, SYSCALL_CREATE_RULESET, SYSCALL_RESTRICT_SELF
except ImportError:  # a worker under another interpreter (make drift) has only torch and numpy
    PR_SET_NO_NEW_PRIVS, SYSCALL_CREATE_RULESET, SYSCALL_ADD_RULE, SYSCALL_RESTRICT_SELF = 38, 444, 445, 446

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
CLONE_NEWIPC = 0x08000000  # System V objects and POSIX message queues made in it die with it
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 0x4000, 1 << 18

# Landlock (include/uapi/linux/landlock.h)
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (1 << 14) | (1 << 15)  # + TRUNCATE, IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
_RULE_PATH_BENEATH = 1
# the filesystem rights each ABI knows: 1 (Linux 5.13) bits 0-12, 2 REFER, 3 TRUNCATE, 5 IOCTL_DEV
_FS_BITS = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    ctypes.set_errno(0)
    return OSError(err, f"{what}: {os.strerror(err)}")


def _check(result: int, what: str) -> None:
    """A libc call's result: anything but 0 raises its errno, naming ``what``."""
    if result != 0:
        raise _fail(what)


def landlock_abi() -> int:
    """The Landlock ABI this kernel offers; 0 if none."""
    abi = libc.syscall(SYSCALL_CREATE_RULESET, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    ctypes.set_errno(0)
    return max(abi, 0)


def fs_rights(abi: int) -> int:
    """Every filesystem right this ABI can restrict."""
    return (1 << _FS_BITS.get(abi, 16)) - 1


def create_ruleset(abi: int, fs: int) -> int:
    """A ruleset's descriptor: it denies every right in ``fs`` but the rules added, TCP bind and connect
    (ABI 4), and signals and abstract UNIX sockets to processes outside the sandbox (ABI 6)."""
    net_rights = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scopes = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = ctypes.create_string_buffer(struct.pack("=QQQ", fs, net_rights, scopes)[:size], size)
    fd = libc.syscall(SYSCALL_CREATE_RULESET, attr, ctypes.c_size_t(size), 0)
    if fd < 0:
        raise _fail("landlock_create_ruleset")
    return fd


def allow_beneath(ruleset_fd: int, path: str, rights: int) -> None:
    """Allow ``rights`` on ``path`` and everything beneath it (a file only gets the rights of files)."""
    target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            rights &= FS_FILE_RIGHTS
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, target), 12)
        _check(libc.syscall(SYSCALL_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, attr, 0), f"landlock_add_rule({path})")
    finally:
        os.close(target)


def restrict_self(ruleset_fd: int) -> None:
    """Enter the ruleset for good, with all it starts; a failure raises: never go on unconfined."""
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    _check(libc.syscall(SYSCALL_RESTRICT_SELF, ruleset_fd, 0), "landlock_restrict_self")


# seccomp (include/uapi/linux/seccomp.h, filter.h, audit.h): AUDIT_ARCH_*, socket, socketpair, clone, setpgid, and
# the calls torch never makes, each refused: ptrace and process_vm_*, pidfd_getfd, the mount calls (old and
# new API), chroot, unshare, setns, bpf, perf_event_open, userfaultfd, io_uring_*, add_key, request_key,
# keyctl, kexec_*, *_module, reboot, swapon/off, syslog, acct, quotactl*, set*name, the clock setters,
# *_handle_at, fanotify_init, lookup_dcookie, vhangup (and on x86-64 iopl, ioperm, uselib, modify_ldt)
_SECCOMP_ARCH = {
    "x86_64": (0xC000003E, 41, 53, 56, 109, (
        101, 103, 134, 153, 154, 155, 159, 161, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 175, 176, 179,
        212, 227, 246, 248, 249, 250, 272, 298, 300, 303, 304, 305, 308, 310, 311, 313, 320, 321, 323, *range(425, 434),
        438, 442, 443)),
    "aarch64": (0xC00000B7, 198, 199, 220, 154, (
        18, 39, 40, 41, 51, 58, 60, 89, 97, 104, 105, 106, 112, 116, 117, 142, 161, 162, 170, 171, 217, 218, 219, 224,
        225, 241, 262, 264, 265, 266, 268, 270, 271, 273, 280, 282, 294, *range(425, 434), 438, 442, 443)),
}  # fmt: skip
_CLONE3 = 435  # both: refused with ENOSYS, so glibc falls back to clone(), whose flags the filter can read
_NEW_NAMESPACES = 0x7E020000  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
_AF_INET, _AF_INET6 = 2, 10  # the only families a snippet may make a socket of (its network is empty)
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RETURNS = {"allow": 0x7FFF0000, "eacces": 0x00050000 | 13, "eperm": 0x00050000 | 1, "enosys": 0x00050000 | 38}
_LD, _JEQ, _JGE, _AND, _RET = 0x20, 0x15, 0x35, 0x54, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, ALU|AND|K, RET|K
_ST, _LDX, _JEQ_X = 0x02, 0x61, 0x1D  # BPF_ST (A to M[k]), BPF_LDX|MEM (M[k] to X), JMP|JEQ|X


def seccomp_available() -> bool:
    """Whether this kernel takes seccomp filters, on an architecture :func:`filter_system_calls`
    knows: a null program is refused with ``EFAULT`` where filters exist, ``EINVAL`` where not."""
    libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, None, 0, 0)
    refused = ctypes.get_errno()
    ctypes.set_errno(0)
    return refused == 14 and os.uname().machine in _SECCOMP_ARCH


def filter_system_calls() -> None:
    """For this process and all it starts: ``socket()`` of any family but AF_INET and AF_INET6 fails
    with ``EACCES`` (AF_UNIX, AF_VSOCK, AF_NETLINK, AF_PACKET...), and ``socketpair()`` unless it is an
    AF_UNIX stream or seqpacket pair (a datagram one can ``sendto`` any named socket); the calls
    listed above, ``clone()`` making a namespace, and ``setpgid(pid, pgid)`` joining another process's
    group (a PID namespace's init in such a group never finishes exiting), fail with ``EPERM``;
    ``clone3`` with ``ENOSYS``. Any other ABI (i386's ``int 0x80``, x32's) gets ``EACCES`` for all."""
    program = filter_program()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(struct.pack("@HP", len(program) // 8, ctypes.addressof(buffer)))
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog, 0, 0), "prctl(PR_SET_SECCOMP)")


@functools.cache
def filter_program() -> bytes:
    """The filter's BPF, assembled once in the worker (about 1 ms of Python), so each child only loads it."""
    arch, socket_nr, pair_nr, clone_nr, setpgid_nr, refused = _SECCOMP_ARCH[os.uname().machine]
    code: list[tuple[int | str, int, str | None, str | None]] = [  # (op, k, label if true, if false)
        (_LD, 4, None, None), (_JEQ, arch, None, "eacces"), (_LD, 0, None, None),  # arch, then nr
        (_JGE, 0x40000000, "eacces", None), *((_JEQ, nr, "eperm", None) for nr in refused),
        (_JEQ, _CLONE3, "enosys", None), (_JEQ, clone_nr, "clone", None), (_JEQ, setpgid_nr, "setpgid", None),
        (_JEQ, socket_nr, "socket", None), (_JEQ, pair_nr, "pair", "allow"),
        ("clone", 16, None, None), (_AND, _NEW_NAMESPACES, None, None), (_JEQ, 0, "allow", "eperm"),
        ("setpgid", 24, None, None), (_JEQ, 0, "allow", None), (_ST, 0, None, None),  # pgid 0: its own group
        (_LD, 16, None, None), (_LDX, 0, None, None), (_JEQ_X, 0, "allow", "eperm"),  # or pid == pgid
        ("socket", 16, None, None), (_JEQ, _AF_INET, "allow", None), (_JEQ, _AF_INET6, "allow", "eacces"),
        ("pair", 16, None, None), (_JEQ, 1, None, "eacces"), (_LD, 24, None, None), (_AND, 0xF, None, None),
        (_JEQ, 1, "allow", None), (_JEQ, 5, "allow", "eacces"),  # SOCK_STREAM, SOCK_SEQPACKET
        *(("ret-" + name, value, None, None) for name, value in _RETURNS.items()),
    ]  # fmt: skip
    at = {op: i for i, (op, *_) in enumerate(code) if isinstance(op, str)}  # labels: a load, or a return
    at |= {name: at["ret-" + name] for name in _RETURNS}
    program = b""
    for i, (op, k, t, f) in enumerate(code):
        opcode = op if isinstance(op, int) else _RET if op.startswith("ret-") else _LD  # a label: load or return
        jt, jf = (0 if to is None else at[to] - i - 1 for to in (t, f))
        program += struct.pack("=HBBI", opcode, jt, jf, k)
    return program


def enter_user_namespace(also: int) -> None:
    """Become root of a new user namespace mapping only our uid and gid, owning new ``also`` namespaces."""
    uid, gid = os.geteuid(), os.getegid()
    _check(libc.unshare(CLONE_NEWUSER | also), "unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        _write(f"/proc/self/{name}", text)  # one write(2), as the kernel requires


def join_new_session_keyring() -> None:
    """A fresh, empty, anonymous session keyring (``KEYCTL_JOIN_SESSION_KEYRING``, no name): nothing of
    the session keyring inherited is possessed any more. A kernel or container refusing ``keyctl``
    (``ENOSYS``, ``EPERM``) refuses it to the snippet too."""
    if libc.syscall(_SYS_KEYCTL.get(os.uname().machine, -1), 1, None) < 0 and ctypes.get_errno() not in (1, 38):
        raise _fail("keyctl(KEYCTL_JOIN_SESSION_KEYRING)")
    ctypes.set_errno(0)


_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}


def unshare(flags: int) -> None:
    _check(libc.unshare(flags), "unshare")


def setns(fd: int, kind: int) -> None:
    _check(libc.setns(fd, kind), "setns")


def unmount(target: str) -> None:
    """Detach ``target``'s mount (``MNT_DETACH``): it is freed once nothing uses it."""
    _check(libc.umount2(os.fsencode(target), 2), f"umount2({target})")


def mount(source: str | None, target: str, fstype: str | None, flags: int, options: str | None = None) -> None:
    encode = lambda text: None if text is None else os.fsencode(text)  # noqa: E731
    _check(libc.mount(encode(source), encode(target), encode(fstype), flags, encode(options)), f"mount({target})")


def mount_tmpfs(target: str, size: int, inodes: int, mode: int) -> None:
    mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},nr_inodes={inodes},mode={mode:o}")


_CAP_HEADER = struct.pack("=Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process


def drop_capabilities() -> None:
    """Empty the capability sets (with ``no_new_privs``, an ``execve`` cannot give them back)."""
    data = ctypes.create_string_buffer(24)
    _check(libc.capset(ctypes.create_string_buffer(_CAP_HEADER, 8), data), "capset")


class PidsCgroup:
    """The worker's own pids cgroup (v1's pids hierarchy, or v2's), joined once: its children are in it
    from ``fork()`` on, at no cost, and ``pids.max`` caps their processes and threads together."""

    def __init__(self, path: str):
        self._max = os.open(os.path.join(path, "pids.max"), os.O_WRONLY | os.O_CLOEXEC)
        self._current = os.open(os.path.join(path, "pids.current"), os.O_RDONLY | os.O_CLOEXEC)
        self._events = os.open(os.path.join(path, "pids.events"), os.O_RDONLY | os.O_CLOEXEC)

    @classmethod
    def join(cls, pid: int) -> PidsCgroup:
        """Make the cgroup for worker ``pid`` (this process) and move it there; OSError if we cannot."""
        path = cgroup_of(pid)
        _sweep(os.path.dirname(path))
        os.mkdir(path)
        try:
            group = cls(path)
            _write(os.path.join(path, "cgroup.procs"), str(pid))
        except OSError:
            os.rmdir(path)
            raise
        return group

    def current(self) -> int:
        return int(os.pread(self._current, 64, 0))

    def set_max(self, count: int) -> None:
        os.pwrite(self._max, str(count).encode(), 0)

    def refusals(self) -> int:
        """How many forks this cgroup has refused so far (``pids.events``' ``max``)."""
        text = os.pread(self._events, 256, 0).decode()
        return int(text.split("max", 1)[1].split()[0]) if "max" in text else 0


def _hierarchy(controller: str) -> tuple[str, str, bool]:
    """(where ``controller``'s hierarchy is mounted, this process's cgroup in it, whether it is v2's)."""
    with open("/proc/self/cgroup") as cgroups:
        lines = [line.rstrip("\n").split(":", 2) for line in cgroups]
    with open("/proc/self/mountinfo") as mounts:
        mountinfo = [line.split() for line in mounts]
    for _, controllers, path in lines:
        if controller in controllers.split(","):
            for fields in mountinfo:
                sep = fields.index("-")
                if fields[sep + 1] == "cgroup" and controller in fields[sep + 3].split(","):
                    return fields[4], path, False
    for _, controllers, path in lines:
        if controllers == "":
            for fields in mountinfo:
                if fields[fields.index("-") + 1] == "cgroup2":
                    return fields[4], path, True
    raise OSError(2, f"no {controller} cgroup hierarchy is mounted")


def _write(path: str, text: str) -> None:
    with open(path, "w") as out:  # one write(2), as cgroup and /proc/self/*_map files need
        out.write(text)


class MemoryCgroup:
    """The memory cgroup of worker ``pid``'s snippets, made once: each snippet's process sets its limit and joins it
    first thing, the worker stays out (its pages are not the snippet's, and at the limit the kernel's OOM killer ends
    the largest process in the group: only the snippet's may be chosen). It counts the pages its members touch, of every
    kind (anonymous, System V and POSIX shared memory, memfd, tmpfs files), not their address space (which a CUDA build
    of torch needs gigabytes of). v1: ``memory.limit_in_bytes`` (and ``memsw``: swap counts too),
    ``memory.oom_control``; v2 (one hierarchy, no process beside a child group): the worker moves to ``worker/`` in its
    pids cgroup, the snippets get ``snippets/`` with ``memory.max`` and no swap, read from ``memory.events``."""

    def __init__(self, path: str, v2: bool):
        v1 = ("memory.limit_in_bytes", "memory.oom_control", "memory.memsw.limit_in_bytes")
        limit, events, swap = ("memory.max", "memory.events", "memory.swap.max") if v2 else v1
        opened = lambda name, flags: os.open(os.path.join(path, name), flags | os.O_CLOEXEC)  # noqa: E731
        self._limit, self._events = opened(limit, os.O_WRONLY), opened(events, os.O_RDONLY)
        self._procs = opened("cgroup.procs", os.O_WRONLY)
        swapped = os.path.exists(os.path.join(path, swap))  # swap accounting may be off
        self._swap = opened(swap, os.O_WRONLY) if swapped and not v2 else None
        if swapped and v2:
            _write(os.path.join(path, swap), "0")

    @classmethod
    def make(cls, pid: int) -> MemoryCgroup:
        root, own, v2 = _hierarchy("memory")
        if v2:
            group = cgroup_of(pid)  # the worker's pids cgroup, in the same hierarchy
            os.mkdir(os.path.join(group, "worker"))
            _write(os.path.join(group, "worker", "cgroup.procs"), str(pid))
            _write(os.path.join(group, "cgroup.subtree_control"), "+memory")
            path = os.path.join(group, "snippets")
        else:
            _sweep(root + own.rstrip("/"))
            path = os.path.join(root + own.rstrip("/"), f"snippet-runner-{pid}")
        os.mkdir(path)
        try:
            return cls(path, v2)
        except OSError:
            os.rmdir(path)
            raise

    def enter(self, size: int) -> None:
        """In the snippet's process, before anything else: limit the group to ``size`` bytes, and join it."""
        data = str(size).encode()
        if self._swap is None:
            os.pwrite(self._limit, data, 0)
        else:  # memsw may never be below the limit: lower the limit first, or raise memsw first
            try:
                os.pwrite(self._limit, data, 0)
            except OSError:
                os.pwrite(self._swap, data, 0)
                os.pwrite(self._limit, data, 0)
            os.pwrite(self._swap, data, 0)
        os.write(self._procs, b"0")  # 0: the writer itself

    def kills(self) -> int:
        """How many processes of the group the OOM killer has ended so far (``oom_kill``)."""
        counts = dict(line.split() for line in os.pread(self._events, 512, 0).decode().splitlines())
        return int(counts.get("oom_kill", 0))


def _sweep(parent: str) -> None:
    """Remove the empty cgroups of gone workers (a build killed outright); a busy one cannot be removed."""
    try:
        names = [name for name in os.listdir(parent) if name.startswith("snippet-runner-")]
    except OSError:
        return
    for name in names:
        if not os.path.exists(f"/proc/{name.removeprefix('snippet-runner-')}"):
            for leaf in ("snippets", "worker", ""):  # v2's leaves first
                with contextlib.suppress(OSError):  # not empty, or not ours
                    os.rmdir(os.path.join(parent, name, leaf))


def cgroup_of(pid: int) -> str:
    """Where worker ``pid``'s cgroup is (or would be), seen from the process that started it."""
    root, path, _ = _hierarchy("pids")
    return os.path.join(root + path.rstrip("/"), f"snippet-runner-{pid}")


def release_cgroup(pid: int) -> None:
    """Once worker ``pid`` is gone: kill whatever is left in its cgroups and remove them."""
    paths = []
    with contextlib.suppress(OSError):
        root, own, v2 = _hierarchy("memory")
        paths += [] if v2 else [os.path.join(root + own.rstrip("/"), f"snippet-runner-{pid}")]
    with contextlib.suppress(OSError):
        group = cgroup_of(pid)
        paths += [os.path.join(group, "snippets"), os.path.join(group, "worker"), group]  # v2's leaves first
    for path in paths:
        _remove(path)


def _remove(path: str) -> None:
    for _ in range(100):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:  # not empty yet
            pass
        try:
            with open(os.path.join(path, "cgroup.procs")) as procs:
                left = [int(line) for line in procs if line.strip()]
        except OSError:
            return
        for orphan in left:
            with contextlib.suppress(OSError):  # gone meanwhile
                os.kill(orphan, 9)
        time.sleep(0.01)
