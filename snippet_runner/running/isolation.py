"""The kernel's isolation mechanisms, as :mod:`snippet_runner.running.sandbox` uses them: namespaces, tmpfs
mounts, a Landlock ruleset with network rules and scopes, a seccomp filter, a pids cgroup, capabilities.

Each call is a system call or a few, through ``ctypes``: 3.11's ``os`` has no ``unshare``, ``mount``
or ``capset``; the ``landlock`` package (pinned) has no network rules or scopes, so only its
constants are used; and the seccomp bindings load the system's ``libseccomp.so.2``, which pip
cannot pin, so the filter is classic BPF written here. Policy (paths, limits, what to do when a
mechanism is missing) is the sandbox's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import time

try:
    from landlock.plumbing import (
        PR_SET_NO_NEW_PRIVS,
        SYSCALL_ADD_RULE,
        SYSCALL_CREATE_RULESET,
        SYSCALL_RESTRICT_SELF,
    )
except ImportError:  # a worker under another interpreter (make drift) has only torch and numpy
    PR_SET_NO_NEW_PRIVS, SYSCALL_CREATE_RULESET, SYSCALL_ADD_RULE, SYSCALL_RESTRICT_SELF = 38, 444, 445, 446

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p)

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
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


# seccomp (include/uapi/linux/seccomp.h, filter.h, audit.h): (AUDIT_ARCH_*, socket, socketpair)
_SECCOMP_ARCH = {"x86_64": (0xC000003E, 41, 53), "aarch64": (0xC00000B7, 198, 199)}
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_ALLOW, _REFUSE = 0x7FFF0000, 0x00050000 | 13  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EACCES
_LD, _JEQ, _JGE, _AND, _RET = 0x20, 0x15, 0x35, 0x54, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, ALU|AND|K, RET|K


def seccomp_available() -> bool:
    """Whether this kernel takes seccomp filters, on an architecture :func:`refuse_unix_sockets`
    knows: a null program is refused with ``EFAULT`` where filters exist, ``EINVAL`` where not."""
    libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, None, 0, 0)
    refused = ctypes.get_errno()
    ctypes.set_errno(0)
    return refused == 14 and os.uname().machine in _SECCOMP_ARCH


def refuse_unix_sockets() -> None:
    """Make ``socket(AF_UNIX, ...)`` fail with ``EACCES`` in this process and all it starts, and
    ``socketpair(AF_UNIX, ...)`` unless it is a stream or seqpacket pair (a datagram socket can
    ``sendto`` or reconnect to any named socket). Any other ABI (i386's ``int 0x80``, x32's
    numbers from ``0x40000000``) gets ``EACCES`` for every call: its socket numbers differ."""
    arch, socket_nr, pair_nr = _SECCOMP_ARCH[os.uname().machine]
    allow, refuse = 14, 15  # the last two instructions
    code = [  # (op, k, where to go if true, if false), None for the next instruction
        (_LD, 4, None, None), (_JEQ, arch, None, refuse), (_LD, 0, None, None),  # arch, then nr
        (_JGE, 0x40000000, refuse, None), (_JEQ, socket_nr, None, 7),
        (_LD, 16, None, None), (_JEQ, 1, refuse, allow),  # 5: socket(AF_UNIX, ...)
        (_JEQ, pair_nr, None, allow), (_LD, 16, None, None), (_JEQ, 1, None, allow),  # 7: socketpair
        (_LD, 24, None, None), (_AND, 0xF, None, None), (_JEQ, 1, allow, None), (_JEQ, 5, allow, refuse),
        (_RET, _ALLOW, None, None), (_RET, _REFUSE, None, None),
    ]  # fmt: skip
    skip = lambda i, to: 0 if to is None else to - i - 1  # noqa: E731
    program = b"".join(struct.pack("=HBBI", op, skip(i, t), skip(i, f), k) for i, (op, k, t, f) in enumerate(code))
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(struct.pack("@HP", len(code), ctypes.addressof(buffer)))
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog, 0, 0), "prctl(PR_SET_SECCOMP)")


def enter_user_namespace(also: int) -> None:
    """Become root of a new user namespace mapping only our uid and gid, owning new ``also`` namespaces."""
    uid, gid = os.geteuid(), os.getegid()
    _check(libc.unshare(CLONE_NEWUSER | also), "unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as proc:  # one write(2), as the kernel requires
            proc.write(text)


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
            with open(os.path.join(path, "cgroup.procs"), "w") as procs:
                procs.write(str(pid))
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


def _pids_hierarchy() -> tuple[str, str]:
    """(where the pids hierarchy is mounted, this process's cgroup in it)."""
    with open("/proc/self/cgroup") as cgroups:
        lines = [line.rstrip("\n").split(":", 2) for line in cgroups]
    with open("/proc/self/mountinfo") as mounts:
        mountinfo = [line.split() for line in mounts]
    for _, controllers, path in lines:
        if "pids" in controllers.split(","):
            for fields in mountinfo:
                sep = fields.index("-")
                if fields[sep + 1] == "cgroup" and "pids" in fields[sep + 3].split(","):
                    return fields[4], path
    for _, controllers, path in lines:
        if controllers == "":
            for fields in mountinfo:
                if fields[fields.index("-") + 1] == "cgroup2":
                    return fields[4], path
    raise OSError(2, "no pids cgroup hierarchy is mounted")


def _sweep(parent: str) -> None:
    """Remove the empty cgroups of gone workers (a build killed outright); a busy one cannot be removed."""
    try:
        names = [name for name in os.listdir(parent) if name.startswith("snippet-runner-")]
    except OSError:
        return
    for name in names:
        if not os.path.exists(f"/proc/{name.removeprefix('snippet-runner-')}"):
            with contextlib.suppress(OSError):  # not empty, or not ours
                os.rmdir(os.path.join(parent, name))


def cgroup_of(pid: int) -> str:
    """Where worker ``pid``'s cgroup is (or would be), seen from the process that started it."""
    root, path = _pids_hierarchy()
    return os.path.join(root + path.rstrip("/"), f"snippet-runner-{pid}")


def release_cgroup(pid: int) -> None:
    """Once worker ``pid`` is gone: kill whatever is left in its cgroup and remove the cgroup."""
    try:
        path = cgroup_of(pid)
    except OSError:
        return
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
