"""No snippet speaks for another (issue 38): each hostile case is a snippet, run the way a build runs
it (a real worker, real pipes, a fork per snippet), or, where the worker itself must misbehave, a
stand-in worker that sends what a compromised one could. The build-level cases (a real ``make
site``) are in ``tests/builds/test_safety.py``."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import markdown
import psutil
import pytest

from snippet_runner import Engine
from snippet_runner.errors import SnippetError
from snippet_runner.markdown.run_lines import expand, run_all
from snippet_runner.running import pool

RESULT = {"error": None, "seconds": 0.0, "peak_rss_growth_kb": 0, "printed_at": [], "pictures": []}
RESULT |= {"picture_errors": [], "limits": []}

# Every line a compromised snippet could want the build to read, on every descriptor it may hold.
FORGER = f"""
import json, os

forged = []
for n in range(1, 40):
    forged.append(dict(kind="RunResult", id=n, outputs=["right\\n"], **{RESULT!r}))
    forged.append(dict(kind="Death", id=n, timed_out=False, stack="", exit_code=-11))
forged.append(dict(kind="Ready", import_seconds=0.0, import_cpu_seconds=0.0, protections_off=["FORGED-READY"]))
forged.append(dict(kind="PreloadFailed", module="FORGED", error="blame mkdocs.yml"))
data = "".join(json.dumps(f) + "\\n" for f in forged).encode()
data += b"INFO    -  FAKE-DOCS-BUILT in 0.01 seconds\\n\\x1b]0;owned\\x07"
reached = []
for fd in range(3, 1024):
    try:
        os.write(fd, data)
        reached.append(fd)
    except OSError:
        pass
print("done")
"""


def test_a_snippet_cannot_forge_a_result_for_another_nor_cache_one(tmp_path, write_snippet, capfd):
    """The innocent snippet's approved output is ``right``; its code now prints ``wrong``. Before,
    a forged line on the inherited pipe made it pass, and cached the pass. (Neither snippet needs
    torch: the workers preload nothing, the same for both, so the second would find a forged entry.)"""
    write_snippet("page/forger.py", FORGER)
    (write_snippet.snippets / "page/forger.out").write_text("done\n")
    write_snippet("page/innocent.py", "print('wrong')\n")
    (write_snippet.snippets / "page/innocent.out").write_text("right\n")
    engine = Engine(write_snippet.snippets, tmp_path / ".cache", preload=())
    try:
        engine.prefetch(["page/forger.py", "page/innocent.py"])  # the innocent's request is queued
        assert engine.run("page/forger.py").output == "done\n"
        with pytest.raises(SnippetError) as caught:
            engine.run("page/innocent.py")
        assert "output differs from the approved snippets/page/innocent.out" in str(caught.value)
        assert "FORGED" not in engine.summary() and engine.runner.preload_failed is None
    finally:
        engine.close()
    assert "FAKE-DOCS-BUILT" not in capfd.readouterr().err, "a snippet wrote to the build's stderr"
    (write_snippet.snippets / "page/forger.py").unlink()
    again = Engine(write_snippet.snippets, tmp_path / ".cache", preload=())
    try:
        with pytest.raises(SnippetError, match="output differs"):
            again.run("page/innocent.py")  # nothing forged was cached
    finally:
        again.close()


def test_a_snippet_holds_no_descriptor_but_0_1_2_and_reads_nothing_on_stdin(write_snippet, engine):
    write_snippet(
        "page/fds.py",
        """
        import os, sys

        def is_open(fd):
            try:
                os.fstat(fd)
                return True
            except OSError:
                return False

        print([fd for fd in range(65536) if is_open(fd)], repr(sys.stdin.read()))
        """,
    )
    assert engine.run("page/fds.py").output == "[0, 1, 2] ''\n"


def test_no_request_the_worker_was_sent_ahead_is_in_a_snippets_memory(tmp_path, write_snippet):
    """The build sends requests ahead; the worker reads one per fork, so the next is in the pipe,
    not in the memory a child inherits (searched here for the next snippet's file name)."""
    write_snippet(
        "page/search.py",
        """
        import re

        needle = re.compile(rb"innoc[e]nt_zq")  # its own memory never holds the name whole
        found = False
        with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as memory:
            for line in maps:
                span, perms = line.split()[:2]
                if "r" not in perms or "[v" in line:
                    continue
                low, high = (int(x, 16) for x in span.split("-"))
                try:
                    memory.seek(low)
                    found = found or needle.search(memory.read(high - low)) is not None
                except (OSError, OverflowError, MemoryError):
                    pass
        print("found", found)
        """,
    )
    write_snippet("page/innocent_zq.py", "print('innocent')\n")
    engine = Engine(write_snippet.snippets, approval_mode="warn", preload=())
    try:
        engine.runner.wait_ready()
        engine.prefetch(["page/search.py", "page/innocent_zq.py"])
        assert engine.run("page/search.py").output == "found False\n"
    finally:
        engine.close()


# -- a worker that sends what it must not -------------------------------------------------------

FAKE_WORKER = """
import json, os, sys, time

out = os.fdopen(int(sys.argv[sys.argv.index("snippet_runner.running.worker") + 1]), "wb", buffering=0)
mode = os.environ["FAKE_MODE"]
out.write(b'{"kind": "Ready", "import_seconds": 0.1, "import_cpu_seconds": 0.1, "protections_off": []}\\n')
# The build sends its request before it reads these (whatever its framing): no need to read it.
if mode != "silent_before_start":
    out.write(b'{"kind": "Started", "id": 1}\\n')
result = dict(kind="RunResult", id=1, outputs=["right\\n"], **RESULT)
if mode == "not_json":
    out.write(b"this is not JSON\\n")
elif mode == "another_id":
    out.write(json.dumps({**result, "id": 99}).encode() + b"\\n")
elif mode == "malformed_field":
    out.write(json.dumps({**result, "printed_at": [["a", None]]}).encode() + b"\\n")
elif mode == "no_newline":
    chunk = b"x" * (1 << 20)
    for _ in range(300):
        out.write(chunk)
time.sleep(600)
"""


@pytest.mark.parametrize(
    "mode, why",
    [
        ("not_json", "not JSON"),
        ("another_id", "a result for request 99, which was not running"),
        ("malformed_field", "printed_at: wrong shape"),
        ("no_newline", "a line longer than"),
    ],
)
def test_a_wrong_line_from_the_worker_stops_the_build_naming_the_page_and_snippet(tmp_path, write_snippet, mode, why):
    fake = tmp_path / "fake-python"
    fake.write_text(f"#!{sys.executable}\nRESULT = {RESULT!r}\n" + FAKE_WORKER)
    fake.chmod(0o755)
    write_snippet("page/x.py", "print('right')\n")
    engine = Engine(write_snippet.snippets, None, preload=(), python=str(fake), worker_env={"FAKE_MODE": mode})
    started = time.monotonic()
    try:
        with pytest.raises(SnippetError) as caught:
            run_all("# Page\n\n{{ run page/x.py }}\n", "docs/page.md", engine)
    finally:
        engine.close()
    message = str(caught.value)
    assert message.startswith("docs/page.md:3: snippets/page/x.py:1: the worker running this snippet sent"), message
    assert why in message and "Traceback" not in message
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("mode", ["silent_before_start", "silent_after_start"])
def test_every_wait_on_the_worker_has_a_deadline(tmp_path, write_snippet, mode, monkeypatch):
    # the deadline is the same code with a shorter grace; the fake worker never answers, so only
    # how long the test waits depends on it
    monkeypatch.setattr(pool, "GRACE_SECONDS", 0.5)
    fake = tmp_path / "fake-python"
    fake.write_text(f"#!{sys.executable}\nRESULT = {RESULT!r}\n" + FAKE_WORKER)
    fake.chmod(0o755)
    write_snippet("page/x.py", "# snippet: timeout 0.5\nprint('right')\n")
    engine = Engine(write_snippet.snippets, None, preload=(), python=str(fake), worker_env={"FAKE_MODE": mode})
    try:
        with pytest.raises(SnippetError, match=r"snippets/page/x\.py:1: timed out after 0\.5 s"):
            engine.run("page/x.py")
    finally:
        engine.close()


# -- processes, /proc and sockets ----------------------------------------------------------------

ESCAPER = """
import os, subprocess

# a chain that leaves the snippet's session and process group, and respawns itself
loop = "trap '' HUP TERM; while :; do (setsid sh -c 'echo INTRUDER-4711' &); echo INTRUDER-4711; sleep 0.01; done"
subprocess.Popen(["setsid", "sh", "-c", f"setsid sh -c \\"{loop}\\" & exit"], start_new_session=True)
print("escaped")
"""


def _marked(marker: str) -> list[str]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        with_args = " ".join(process.info["cmdline"] or [])
        if marker in with_args and process.pid != os.getpid():
            found.append(with_args)
    return found


def test_no_process_a_snippet_started_outlives_its_run_not_even_a_setsid_chain(write_snippet, engine):
    write_snippet("page/escape.py", ESCAPER)
    for n in range(3):
        write_snippet(f"page/quiet{n}.py", "import time\ntime.sleep(0.05)\nprint('quiet')\n")
    engine.prefetch(["page/escape.py", *(f"page/quiet{n}.py" for n in range(3))])
    # What the chain printed while the snippet still ran is the snippet's own output (on a busy
    # machine its first echo can come before Python flushes "escaped" at exit); nothing after.
    own = engine.run("page/escape.py").output.splitlines()
    assert "escaped" in own and set(own) <= {"escaped", "INTRUDER-4711"}, own
    assert _marked("INTRUDER-4711") == [], "a process the snippet started outlived its run"
    for n in range(3):
        assert engine.run(f"page/quiet{n}.py").output == "quiet\n"


def test_proc_shows_a_snippet_only_its_own_processes(write_snippet, engine):
    token = f"--api-token={os.urandom(8).hex()}"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", token])
    try:
        write_snippet(
            "page/look.py",
            """
            import os, subprocess

            child = subprocess.Popen(["sleep", "5"])
            pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
            lines = []
            for pid in pids:
                try:
                    lines.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode())
                except OSError:
                    pass
            child.kill()
            print(pids == [1, child.pid], any("api-token" in line for line in lines))
            """,
        )
        assert engine.run("page/look.py").output == "True False\n"
    finally:
        other.kill()
        other.wait()


CONNECT = """
import ctypes, os, socket

libc = ctypes.CDLL(None, use_errno=True)
for name in ({named!r}, {abstract!r}):
    label = name[1:9] if name[0] == "\\0" else "named"
    fd = libc.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0)
    if fd < 0:
        print(label, "socket:", os.strerror(ctypes.get_errno()))
        continue
    path = name.encode()
    address = socket.AF_UNIX.to_bytes(2, "little") + path + bytes(108 - len(path))
    done = libc.connect(fd, address, 2 + len(path))
    print(label, "connected" if done == 0 else os.strerror(ctypes.get_errno()))
"""


def test_no_unix_socket_reaches_a_process_outside_the_snippet_even_from_c(write_snippet, engine):
    """With the seccomp filter, ``socket(AF_UNIX)`` itself is refused, before the hidden ``/tmp``
    (``No such file or directory``) or the network namespace would answer ``connect``."""
    tag = os.urandom(4).hex()
    named, abstract = f"/tmp/snippet-runner-test-{tag}.sock", f"\0snippet-runner-test-{tag}"
    listeners = [socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)]
    try:
        for listener, name in zip(listeners, (named, abstract), strict=True):
            listener.bind(name)
            listener.listen()
            listener.settimeout(0.2)
        write_snippet("page/connect.py", CONNECT.format(named=named, abstract=abstract))
        output = engine.run("page/connect.py").output
        for listener in listeners:
            with pytest.raises(TimeoutError):
                listener.accept()
    finally:
        for listener in listeners:
            listener.close()
        if os.path.exists(named):
            os.unlink(named)
    assert output == "named socket: Permission denied\nsnippet- socket: Permission denied\n", output


VISIBLE = """
import ctypes, os, socket

for kind in ("SOCK_STREAM", "SOCK_DGRAM"):  # Python: socket(), and a datagram pair's sendto
    try:
        socket.socket(socket.AF_UNIX, getattr(socket, kind)).connect({stream!r})
        print("python", kind, "connected")
    except OSError as error:
        print("python", kind, error)
try:
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0].sendto(b"x", {datagram!r})
    print("python pair sent")
except OSError as error:
    print("python pair", error)
libc = ctypes.CDLL(None, use_errno=True)  # C: the same, past Python's audit hook
fd = libc.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0)
address = socket.AF_UNIX.to_bytes(2, "little") + {stream!r}.encode()
done = libc.connect(fd, address, len(address)) if fd >= 0 else -1
print("C socket", "connected" if done == 0 else os.strerror(ctypes.get_errno()))
pair = (ctypes.c_int * 2)()
sent = -1
if libc.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM, 0, pair) == 0:
    address = socket.AF_UNIX.to_bytes(2, "little") + {datagram!r}.encode()
    sent = libc.sendto(pair[0], b"x", 1, 0, address, len(address))
print("C pair", "sent" if sent == 1 else os.strerror(ctypes.get_errno()))
if os.uname().machine == "x86_64":  # the x32 ABI's socket: the filter knows only x86_64's numbers
    fd = libc.syscall(0x40000000 | 41, socket.AF_UNIX, socket.SOCK_STREAM, 0)
    print("x32 socket", "made" if fd >= 0 else os.strerror(ctypes.get_errno()))
"""


def test_no_named_unix_socket_reaches_a_listener_in_a_folder_the_snippet_can_see(write_snippet, engine):
    """A socket in the snippet's own folder (read-only for it, but ``connect`` needs no write
    access to the mount, and Landlock does not cover it). Without the seccomp filter, C connected
    and the datagram pair delivered; Python's ``connect`` met the audit hook."""
    folder = write_snippet("page/visible.py", "").parent
    tag = os.urandom(3).hex()
    stream, datagram = f"s{tag}.sock", f"d{tag}.sock"  # relative: the snippet runs in its folder
    listener, inbox = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        listener.bind(str(folder / stream))
        listener.listen()
        listener.settimeout(0.2)
        inbox.bind(str(folder / datagram))
        inbox.settimeout(0.2)
        write_snippet("page/visible.py", VISIBLE.format(stream=stream, datagram=datagram))
        output = engine.run("page/visible.py").output
        with pytest.raises(TimeoutError):
            listener.accept()
        with pytest.raises(TimeoutError):
            inbox.recv(16)
    finally:
        listener.close()
        inbox.close()
        for name in (stream, datagram):
            (folder / name).unlink(missing_ok=True)
    refused = "[Errno 13] Permission denied"
    assert output == (
        f"python SOCK_STREAM {refused}\npython SOCK_DGRAM {refused}\npython pair {refused}\n"
        "C socket Permission denied\nC pair Permission denied\n"
        + ("x32 socket Permission denied\n" if os.uname().machine == "x86_64" else "")
    ), output


def test_a_snippet_may_still_use_a_socket_pair(write_snippet, engine):
    """A stream pair reaches only itself: ``socket.socketpair()`` and ``multiprocessing.Pipe()``
    (which is one) still work."""
    write_snippet(
        "page/pair.py",
        """
        import multiprocessing, socket

        left, right = socket.socketpair()
        left.sendall(b"through the pair")
        print(right.recv(64).decode())
        sender, receiver = multiprocessing.Pipe()
        sender.send([1, 2])
        print(receiver.recv())
        """,
    )
    assert engine.run("page/pair.py").output == "through the pair\n[1, 2]\n"


# -- settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("disk 0KB", "disk 64KB to 4GB"),
        ("disk 8GB", "disk 64KB to 4GB"),
        ("shm 0KB", "shm 64KB to 4GB"),
        ("output 4GB", "output 1KB to 64MB"),
        ("output 0KB", "output 1KB to 64MB"),
        ("timeout 100000000000000000000000", "timeout 0.1 to 600 (seconds)"),
        ("timeout 0", "timeout 0.1 to 600 (seconds)"),
        ("processes 999999999", "processes 1 to 4096"),
        ("processes 0", "processes 1 to 4096"),
        ("memory 1KB", "memory 64MB to"),
        ("memory 100000GB", "memory 64MB to"),
    ],
)
def test_every_limit_has_a_floor_and_a_ceiling(write_snippet, engine, setting, expected):
    write_snippet("page/capped.py", f"# snippet: output 1MB\n# snippet: {setting}\nprint('x')\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/capped.py")
    assert str(caught.value).startswith(
        f"snippets/page/capped.py:2: '# snippet: {setting}' is outside what a snippet may ask for: {expected}"
    ), str(caught.value)


def test_a_scratch_folder_kept_in_memory_counts_against_the_memory_limit(write_snippet, engine):
    write_snippet("page/tight.py", "# snippet: memory 1GB\n# snippet: disk 2GB\nprint('x')\n")
    with pytest.raises(SnippetError, match=r"tight.py:2: its scratch folder .* count against its memory limit"):
        engine.run("page/tight.py")
    fill = "with open(tempfile.gettempdir() + '/f', 'wb') as out:\n    out.write(b'x' * (40 << 20))\n"
    settings = "# snippet: memory 128MB\n# snippet: disk 60MB\n# snippet: output 41MB\nimport tempfile\n"
    write_snippet("page/fits.py", settings + fill + "block = bytearray(40 << 20)\nprint('allocated')\n")
    assert engine.run("page/fits.py").output == "allocated\n"
    write_snippet("page/full.py", settings + fill + "block = bytearray(100 << 20)\nprint('allocated')\n")
    with pytest.raises(SnippetError, match=r"full\.py:\d+: stopped at its memory limit of 128MB"):
        engine.run("page/full.py")  # 40 MB of files and 100 MB allocated: with a memory cgroup, what it uses counts


# -- what a snippet prints, in the terminal and on the page --------------------------------------


def test_control_characters_never_reach_the_terminal_raw(write_snippet, engine):
    write_snippet("page/codes.py", "print('\\x1b[2J\\x1b]0;owned\\x07cleared')\nraise ValueError('\\x1b[31mred')\n")
    (write_snippet.snippets / "page/codes.out").write_text("something else\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/codes.py")
    text = str(caught.value)
    assert "\x1b" not in text and "\x07" not in text
    assert "raised an unexpected ValueError: \\x1b[31mred" in text and "\\x1b[2J\\x1b]0;owned\\x07cleared" in text
    engine.approval_mode = "strict"
    write_snippet("page/codes.py", "print('\\x1b[2J\\x1b]0;owned\\x07cleared')\n")
    with pytest.raises(SnippetError) as caught:
        engine.run("page/codes.py")
    assert "differs" in str(caught.value) and "\x1b" not in str(caught.value)
    assert "+\\x1b[2J\\x1b]0;owned\\x07cleared" in caught.value.detail


def test_an_output_is_always_text_on_its_page(write_snippet, engine):
    """Python-Markdown stashes raw HTML behind STX/ETX placeholders; an output holding one must
    not pull the page's stashed HTML into its block."""
    write_snippet("page/stash.py", "print('before \\x02wzxhzdk:0\\x03 after \\x1b[1m')\n")
    (write_snippet.snippets / "page/stash.out").write_bytes(b"before \x02wzxhzdk:0\x03 after \x1b[1m\n")
    engine.approval_mode = "strict"
    page = '<div class="stashed">RAW-HTML</div>\n\n{{ run page/stash.py }}\n'
    html = markdown.Markdown(extensions=["fenced_code", "attr_list"]).convert(expand(page, "docs/p.md", engine))
    assert html.count("RAW-HTML") == 1, html
    assert "\x02" not in html and "\x1b" not in html
    assert "before ␂wzxhzdk:0␃ after ␛[1m" in html


def test_the_build_parses_every_message_exactly():
    from snippet_runner.running import protocol

    good = {"kind": "RunResult", "id": 1, "outputs": ["x"], **RESULT}
    assert protocol.loads(json.dumps(good), protocol.RunResult).outputs == ("x",)
    for bad in [
        {**good, "id": True},
        {**good, "id": "1"},
        {**good, "outputs": [1]},
        {**good, "seconds": float("nan")},
        {**good, "limits": ["anything"]},
        {**good, "extra": 1},
        {**good, "kind": "Ready"},
        {k: v for k, v in good.items() if k != "error"},
    ]:
        with pytest.raises(protocol.ProtocolError):
            protocol.loads(json.dumps(bad), protocol.RunResult)
    with pytest.raises(protocol.ProtocolError):
        protocol.loads("[" * 100_000, protocol.RunResult)


@pytest.mark.timeout(180)
def test_long_snippets_with_long_outputs_sent_ahead_never_block_the_build(write_snippet, engine):
    """The worker reads one request per fork, so requests sent ahead wait in its pipe: the build
    sends no more than the pipe holds, or it would block writing while the worker blocks writing
    a long result the build is not reading yet."""
    rels = []
    for n in range(12):
        padding = f"# {'x' * 76}\n" * (400 if n % 3 else 1600)  # 32 KB of source, or 128 KB
        write_snippet(f"page/long{n}.py", f"{padding}print('{n}' * 200_000)\n")
        rels.append(f"page/long{n}.py")
    engine.prefetch(rels)
    for n, rel in enumerate(rels):
        assert engine.run(rel).output == f"{n}" * 200_000 + "\n"


def test_a_cache_entry_that_is_not_its_keys_exact_result_is_a_miss(tmp_path, write_snippet):
    for name, text in (("a", "alpha"), ("b", "beta")):
        write_snippet(f"page/{name}.py", f"print({text!r})\n")
        (write_snippet.snippets / f"page/{name}.out").write_text(f"{text}\n")

    def run(rel: str) -> bool:
        engine = Engine(write_snippet.snippets, tmp_path / "cache", preload=())
        try:
            outcome = engine.run(rel)
            assert outcome.output == ("alpha\n" if rel == "page/a.py" else "beta\n")
            return outcome.cached
        finally:
            engine.close()

    assert not run("page/a.py") and not run("page/b.py") and run("page/a.py")
    entries = {"alpha" in p.read_text(): p for p in (tmp_path / "cache").rglob("*.json")}
    a_entry, b_entry = entries[True], entries[False]
    b_entry.write_text(a_entry.read_text())  # a valid entry, of another key: it would show alpha for b
    assert run("page/b.py") is False
    entry = json.loads(a_entry.read_text())
    entry.get("result", entry)["printed_at"] = [["0", 1]]
    a_entry.write_text(json.dumps(entry))
    assert run("page/a.py") is False
    a_entry.unlink()
    a_entry.mkdir()
    assert run("page/a.py") is False
