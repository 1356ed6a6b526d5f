"""The build's scratch folders (``/tmp/snippet-runner-<pid>-…``): made here, and never left behind.

A runner keeps its worker's crash dumps and the snippets' scratch folders in one temporary folder
of its own, removed when the runner closes. A build that is stopped (Ctrl-C, SIGTERM, which the
build and ``make serve`` turn into Ctrl-C) removes it on the way out: every folder made here is
also removed when the process exits (``atexit``). A process killed outright (SIGKILL, a crash)
cannot; so each folder's name carries the process id of the build that made it, and every build,
when it makes its first one, removes the folders whose build is gone.

``tempfile.TemporaryDirectory`` was looked at: it removes its folder when closed or collected, but
not when the process dies, and it cannot tell another process's leftovers from a live build's.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile

PREFIX = "snippet-runner-"
_OWNED = re.compile(rf"^{re.escape(PREFIX)}(?P<pid>\d+)-")
_made: set[str] = set()  # this process's folders, not removed yet
_swept = False


def make() -> str:
    """A new folder of this process's, in the system's temporary folder; the first call also
    removes what earlier builds, now gone, left there."""
    global _swept
    if not _swept:
        _swept = True
        sweep()
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    _made.add(path)
    return path


def remove(path: str) -> None:
    """Remove a folder :func:`make` made (or any folder: it is removed all the same)."""
    shutil.rmtree(path, ignore_errors=True)
    _made.discard(path)


@atexit.register
def _remove_all() -> None:
    # Only the process that made them: a forked child (a worker started with fork) exits too.
    for path in list(_made):
        if os.path.basename(path).startswith(f"{PREFIX}{os.getpid()}-"):
            remove(path)


def sweep(folder: str | None = None) -> list[str]:
    """Remove the folders of builds whose process is gone; return what was removed. A folder
    whose process still runs (another build, another ``make serve``) is left alone."""
    folder = folder or tempfile.gettempdir()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for name in names:
        match = _OWNED.match(name)
        if match is None or _alive(int(match["pid"])):
            continue
        shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        removed.append(name)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only checks that the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
