"""Ways to the kernel a snippet does not need, and what it makes outside its address space (issue 48):
io_uring, keyrings, socket families, namespaces and other calls the seccomp filter refuses; System V
objects and message queues in an IPC namespace of its own; a memory limit that counts pages of every
kind, not address space; a timeout the worker keeps whatever the snippet's processes do. Each case is a
snippet run the way a build runs it (a real worker, a fork per snippet)."""

from __future__ import annotations

import ctypes
import errno
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from snippet_runner import Engine
from snippet_runner.errors import SnippetError
from snippet_runner.running import pool

libc = ctypes.CDLL(None, use_errno=True)
X86 = os.uname().machine == "x86_64"
pytestmark = pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="syscall numbers")

CALLS = """
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *args):
    made = libc.syscall(number, *args)
    print(name, made if made >= 0 else os.strerror(ctypes.get_errno()))
"""
# name: (x86-64 number, aarch64 number, arguments); harmless arguments that work where the call is allowed
REFUSED = {
    "io_uring_setup": (425, 425, "4, ctypes.create_string_buffer(120)"),
    "io_uring_enter": (426, 426, "0, 0, 0, 0, None, 0"),
    "io_uring_register": (427, 427, "0, 0, None, 0"),
    "add_key": (248, 217, 'b"user", b"mine", b"x", 1, -4'),  # to the user keyring
    "request_key": (249, 218, 'b"user", b"mine", None, 0'),
    "keyctl": (250, 219, "0, -3, 0"),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "bpf": (321, 280, "0, None, 0"),
    "userfaultfd": (323, 282, "0"),
    "perf_event_open": (298, 241, "ctypes.create_string_buffer(128), 0, -1, -1, 0"),
    "ptrace": (101, 117, "16, 1, 0, 0"),  # PTRACE_ATTACH to its own namespace's init
    "process_vm_readv": (310, 270, "1, None, 0, None, 0, 0"),
    "unshare": (272, 97, "0x10000000"),  # a user namespace of its own: every capability again
    "setns": (308, 268, "-1, 0"),
    "mount": (165, 40, 'b"none", b"/tmp", b"tmpfs", 0, None'),
    "fsopen": (430, 430, 'b"tmpfs", 0'),
    "open_tree": (428, 428, '-100, b"/", 1'),
    "kexec_load": (246, 104, "0, 0, None, 0"),
    "finit_module": (313, 273, "-1, b'', 0"),
    "clone": (56, 220, "0x10000000 | 17, 0, 0, 0, 0"),  # CLONE_NEWUSER | SIGCHLD
}


def test_calls_torch_does_not_need_are_refused_each_with_eperm(write_snippet, engine):
    """io_uring (its ``IORING_OP_SOCKET`` made an AF_UNIX socket the filter had refused), the keyring
    calls, and the rest. Before, ``unshare``, ``clone`` and the io_uring and keyring calls succeeded."""
    index = 0 if X86 else 1
    lines = [f"call({name!r}, {numbers[index]}, {numbers[2]})" for name, numbers in REFUSED.items()]
    clone3 = "print('clone3', libc.syscall(435, None, 0) < 0 and os.strerror(ctypes.get_errno()))"
    write_snippet("page/calls.py", CALLS + "\n".join([*lines, clone3]) + "\n")
    output = engine.run("page/calls.py").output
    denied = os.strerror(errno.EPERM)
    assert output == "".join(f"{name} {denied}\n" for name in REFUSED) + f"clone3 {os.strerror(errno.ENOSYS)}\n", output


def test_only_inet_sockets_may_be_made_and_threads_and_subprocesses_still_work(write_snippet, engine):
    """AF_VSOCK (its port space is the machine's), netlink (the empty network namespace's routes),
    packet, crypto (AF_ALG), key management: refused. Before, vsock and netlink sockets were made."""
    write_snippet(
        "page/families.py",
        """
        import socket, subprocess, threading

        for name, family, kind in [("AF_VSOCK", 40, 1), ("AF_NETLINK", 16, 3), ("AF_PACKET", 17, 3),
                                   ("AF_ALG", 38, 5), ("AF_KEY", 15, 3), ("AF_INET", 2, 1), ("AF_INET6", 10, 2)]:
            try:
                socket.socket(family, kind).close()
                print(name, "made")
            except OSError as error:
                print(name, error.strerror)
        thread = threading.Thread(target=print, args=("a thread ran",))
        thread.start()
        thread.join()
        print(subprocess.run(["echo", "a subprocess ran"], capture_output=True, text=True).stdout, end="")
        """,
    )
    refused = os.strerror(errno.EACCES)
    assert engine.run("page/families.py").output == (
        "".join(f"{name} {refused}\n" for name in ("AF_VSOCK", "AF_NETLINK", "AF_PACKET", "AF_ALG", "AF_KEY"))
        + "AF_INET made\nAF_INET6 made\na thread ran\na subprocess ran\n"
    )


KEYS = """
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, REQUEST_KEY, KEYCTL = {numbers}
found = libc.syscall(REQUEST_KEY, b"user", {wanted!r}, None, 0)
print("found" if found >= 0 else os.strerror(ctypes.get_errno()))
for line in open("/proc/keys"):  # its id, if it can see it, then its payload
    if {wanted!r}.decode() in line:
        data = ctypes.create_string_buffer(64)
        read = libc.syscall(KEYCTL, 11, int(line.split()[0], 16), data, 64)
        print("read", data.value if read >= 0 else os.strerror(ctypes.get_errno()))
added = libc.syscall(ADD_KEY, b"user", {mine!r}, b"left-behind", 11, -4)  # the user keyring
print("added" if added >= 0 else os.strerror(ctypes.get_errno()))
"""


def test_no_snippet_reads_the_builds_session_keyring_or_a_key_an_earlier_one_added(tmp_path, write_snippet):
    """A key in the build's session keyring (where CI may keep a token) is neither found, listed in
    ``/proc/keys``, nor read; a key one snippet tries to add is not there for the next. Before, the
    first was found and read, and the second added and found."""
    numbers = (248, 249, 250) if X86 else (217, 218, 219)
    tag = os.urandom(4).hex().encode()
    secret, mine = b"ci-token-" + tag, b"snippet-" + tag
    assert libc.syscall(numbers[2], 1, b"build-session-" + tag) >= 0  # this process: a session keyring of its own
    key = libc.syscall(numbers[0], b"user", secret, b"TOKEN-4711", 10, -3)  # into it
    assert key >= 0, os.strerror(ctypes.get_errno())
    write_snippet("page/first.py", KEYS.format(numbers=numbers, wanted=secret, mine=mine))
    write_snippet("page/second.py", KEYS.format(numbers=numbers, wanted=mine, mine=mine))
    engine = Engine(write_snippet.snippets, None, approval_mode="warn", preload=())  # its worker: in that session
    try:
        first, second = engine.run("page/first.py").output, engine.run("page/second.py").output
    finally:
        engine.close()
        libc.syscall(numbers[2], 21, key)  # KEYCTL_INVALIDATE
    refused = os.strerror(errno.EPERM)
    assert first == second == f"{refused}\n{refused}\n", (first, second)


SYSV = """
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
print("machine's", [line.split()[1] for line in open("/proc/sysvipc/shm")][1:])
outside = libc.shmat({outside}, None, 0)
print("attach", os.strerror(ctypes.get_errno()) if outside in (None, 2**64 - 1) else ctypes.string_at(outside, 6))
mine = libc.shmget({key}, 4096, 0o600)  # made by an earlier snippet, or not there
print("earlier", "found" if mine >= 0 else os.strerror(ctypes.get_errno()))
print("made", libc.shmget({key}, 4096, 0o1600) >= 0, libc.msgget({key}, 0o1600) >= 0)  # IPC_CREAT
"""


def test_system_v_objects_of_the_machine_are_unseen_and_a_snippets_die_with_it(write_snippet, engine):
    """A root-owned, mode 0600 segment made outside, and what a snippet makes with a key: before, the
    snippet read the former and a later one found the latter, which outlived the build."""
    libc.shmat.restype = ctypes.c_void_p
    outside = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT
    assert outside >= 0
    address = libc.shmat(outside, None, 0)
    ctypes.memmove(address, b"SECRET", 6)
    key = int.from_bytes(os.urandom(3), "little") + 1
    try:
        write_snippet("page/sysv.py", SYSV.format(outside=outside, key=key))
        outputs = [engine.run("page/sysv.py").output for _ in range(2)]
        left = libc.shmget(key, 0, 0), libc.msgget(key, 0)
    finally:
        libc.shmdt(ctypes.c_void_p(address))
        libc.shmctl(outside, 0, None)  # IPC_RMID
    invalid, absent = os.strerror(errno.EINVAL), os.strerror(errno.ENOENT)
    assert outputs == [f"machine's []\nattach {invalid}\nearlier {absent}\nmade True True\n"] * 2, outputs
    assert left == (-1, -1), "a snippet's System V object outlived it"


@pytest.mark.parametrize(
    "kind, code",
    [
        (
            "System V shared memory, detached",
            """
            # snippet: disk 1MB
            import ctypes
            libc = ctypes.CDLL(None)
            libc.shmat.restype = ctypes.c_void_p
            for _ in range(8):
                segment = libc.shmget(0, 64 << 20, 0o1600)
                address = libc.shmat(segment, None, 0)
                ctypes.memset(address, 1, 64 << 20)
                libc.shmdt(ctypes.c_void_p(address))
            print("filled")
            """,
        ),
        (
            "memfd",
            """
            # snippet: disk 1MB
            # snippet: output 64MB
            import os
            files, block = [], b"x" * (1 << 20)
            for _ in range(8):  # each below the output limit, which caps a file's size
                files.append(os.memfd_create("fill"))
                for _ in range(40):
                    os.write(files[-1], block)
            print("filled")
            """,
        ),
        (
            "a file in its scratch folder, then anonymous memory",
            """
            # snippet: disk 190MB
            # snippet: output 64MB
            import tempfile
            for n in range(3):  # each below the output limit, which caps a file's size
                with open(f"{tempfile.gettempdir()}/fill{n}", "wb") as out:
                    out.write(b"x" * (50 << 20))
            block = bytearray(150 << 20)
            print("filled")
            """,
        ),
    ],
)
def test_the_memory_limit_counts_memory_of_every_kind(write_snippet, engine, kind, code):
    """Under ``memory 256MB``. Before, the System V segments (out of its address space once
    detached) and the memfd (written, never mapped) passed with no limit met; the scratch files
    were counted as the whole of ``disk`` whether written or not."""
    write_snippet("page/fill.py", "# snippet: memory 256MB\n" + textwrap.dedent(code))
    with pytest.raises(SnippetError) as caught:
        engine.run("page/fill.py")
    assert "fill.py:1: stopped at its memory limit of 256MB; raise it with '# snippet: memory 512MB'" in str(
        caught.value
    ), (kind, str(caught.value))
    write_snippet("page/after.py", "print('next')\n")
    assert engine.run("page/after.py").output == "next\n"


def test_the_memory_limit_counts_memory_not_address_space(write_snippet, engine):
    """A CUDA build of torch maps gigabytes it never touches (``libtorch_cuda.so: failed to map
    segment`` under an address-space limit); so does this snippet, under ``memory 128MB``."""
    write_snippet(
        "page/map.py",
        """
        # snippet: memory 128MB
        # snippet: disk 16MB
        import mmap
        reserved = mmap.mmap(-1, 8 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)  # MAP_NORESERVE
        reserved[:5] = b"touch"
        print("mapped", len(reserved) >> 30, "GB")
        """,
    )
    assert engine.run("page/map.py").output == "mapped 8 GB\n"


DODGER = """
# snippet: timeout 1
import faulthandler, os, signal, time

faulthandler.cancel_dump_traceback_later()  # its own watchdog gone: only the worker can end it
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)
read, write = os.pipe()
if os.fork() == 0:
    grandchild = os.fork()
    if grandchild == 0:
        os.setpgid(0, 0)
        loop = "trap '' HUP INT TERM ALRM; while :; do sleep 0.05; done"
        os.execvp("sh", ["sh", "-c", loop, "{marker}"])
    os.setpgid(grandchild, grandchild)
    os.write(write, str(grandchild).encode())
    os.setsid()  # a session of its own
    while True:
        time.sleep(0.05)
try:
    os.setpgid(0, int(os.read(read, 32)))  # into the grandchild's process group
    print("moved", flush=True)
except PermissionError:
    print("refused", flush=True)
while True:
    time.sleep(0.05)
"""


def _marked(marker: str) -> list[int]:
    return [p.pid for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]


def test_the_worker_keeps_a_timeout_whatever_the_snippets_processes_do(write_snippet, engine, monkeypatch):
    """Signals ignored, its watchdog cancelled, moved into a grandchild's process group: the worker
    kills its PID namespace, so the same worker answers, long before the build would give up on it
    (before, it outlived the worker's kill and the build killed the worker 10 s later)."""
    monkeypatch.setattr(pool, "GRACE_SECONDS", 60.0)
    marker = f"dodger-{os.urandom(4).hex()}"
    write_snippet("page/dodge.py", DODGER.format(marker=marker))
    write_snippet("page/after.py", "print('next')\n")
    engine.runner.wait_ready()
    before = engine.runner.workers_started
    started = time.monotonic()
    with pytest.raises(SnippetError, match=r"dodge\.py:\d+: timed out after 1 s"):
        engine.run("page/dodge.py")
    assert time.monotonic() - started < 30, "the build's deadline, not the worker's, ended it"
    assert engine.runner.workers_started == before, "the worker did not keep the timeout: the build replaced it"
    assert _marked(marker) == [], "a process of the snippet outlived it"
    assert engine.run("page/after.py").output == "next\n"


WITHOUT_CGROUP = """
from snippet_runner import Engine
from snippet_runner.errors import SnippetError

engine = Engine({snippets!r}, None, approval_mode="warn", preload=())
try:
    try:
        engine.run("page/big.py")
    except SnippetError as error:
        print("ERROR", error)
    print("OFF", engine.runner.protections_off)
finally:
    engine.close()
"""


def test_without_a_memory_cgroup_the_build_says_so_and_the_address_space_is_limited(write_snippet):
    """A machine where the worker cannot make a memory cgroup (here: its hierarchy mounted read-only
    in a mount namespace of the build's own): the build says once which protection is off, and the
    address-space limit still stops an allocation at its line."""
    memory = "/sys/fs/cgroup/memory"
    if shutil.which("unshare") is None or os.geteuid() != 0 or not os.path.isdir(memory):
        pytest.skip("needs root, util-linux's unshare and cgroup v1's memory hierarchy")
    write_snippet("page/big.py", "print('allocating')\nblock = bytearray(5 * 1024**3)\n")
    script = WITHOUT_CGROUP.format(snippets=str(write_snippet.snippets))
    command = f"mount -o bind,remount,ro {memory} && exec {sys.executable} -c {shlex.quote(script)}"
    done = subprocess.run(["unshare", "--mount", "sh", "-c", command], capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert "page/big.py:2: stopped at its memory limit of 3GB (MemoryError)" in out, done.stdout + done.stderr
    assert out.count("no memory cgroup (Read-only file system)") == 1, out


def test_posix_message_queues_of_the_machine_are_unseen_and_a_snippets_die_with_it(write_snippet, engine):
    """Message queues live in the IPC namespace too: the machine's is not there for a snippet (before,
    it was, and only Landlock kept it shut: "Permission denied"); making one is refused (Landlock
    gives no right on the queues' own file system), so none can outlive it."""
    name = f"/snippet-runner-test-{os.urandom(4).hex()}".encode()
    mine = name + b"-mine"
    queue = libc.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, None)
    assert queue >= 0, os.strerror(ctypes.get_errno())
    code = f"""
    import ctypes, os

    libc = ctypes.CDLL(None, use_errno=True)
    for name in ({name!r}, {mine!r}):
        opened = libc.mq_open(name, os.O_RDWR)
        print(name[-4:], "opened" if opened >= 0 else os.strerror(ctypes.get_errno()))
    made = libc.mq_open({mine!r}, os.O_CREAT | os.O_RDWR, 0o600, None)
    print("made", made if made < 0 else "one", os.strerror(ctypes.get_errno()) if made < 0 else "")
    """
    try:
        write_snippet("page/queue.py", code)
        outputs = [engine.run("page/queue.py").output for _ in range(2)]
        left = libc.mq_open(mine, os.O_RDWR)
    finally:
        os.close(queue)
        libc.mq_unlink(name)
    absent = os.strerror(errno.ENOENT)
    made = f"made -1 {os.strerror(errno.EACCES)}"
    assert outputs == [f"{name[-4:]!r} {absent}\nb'mine' {absent}\n{made}\n"] * 2, outputs
    assert left < 0, "a snippet's message queue outlived it"
