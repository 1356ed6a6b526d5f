"""The build's scratch folders (``/tmp/snippet-runner-<pid>-…``): made here, and never left behind.

A runner keeps the snippets' scratch folders in one folder of its own, removed when it closes, or
at exit (``atexit``: a Ctrl-C or SIGTERM, which the build turns into one). A build killed outright
cannot; so each name carries the build's process id, and every build's first folder sweeps those
whose build is gone. (``tempfile.TemporaryDirectory`` does not outlive a dead process's leftovers,
nor tell them from a live build's.)
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
    """A new folder of this process's; the first call also sweeps what gone builds left."""
    global _swept
    if not _swept:
        _swept = True
        sweep()
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    _made.add(path)
    return path


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
    _made.discard(path)


@atexit.register
def _remove_all() -> None:
    # Only the process that made them: a forked child (a worker started with fork) exits too.
    for path in list(_made):
        if os.path.basename(path).startswith(f"{PREFIX}{os.getpid()}-"):
            remove(path)


def sweep() -> None:
    """Remove the folders of builds whose process is gone (another build's are left alone)."""
    folder = tempfile.gettempdir()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for match in filter(None, map(_OWNED.match, names)):
        try:
            os.kill(int(match["pid"]), 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            shutil.rmtree(os.path.join(folder, match.string), ignore_errors=True)
        except PermissionError:
            pass  # another user's process
