"""The build's scratch folders (``/tmp/snippet-runner-<pid>-…``): made here, and never left behind.

A runner keeps the snippets' scratch folders in one folder of its own, removed when it closes, or
at exit (``atexit``: a Ctrl-C or SIGTERM, which the build turns into one). A build killed outright
cannot; so each name carries the build's process id, and each new folder first sweeps those
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


class ScratchFolder:
    """A new folder of this process's (``path``), removed by :meth:`remove` or at exit: each registers
    its own removal with ``atexit``, so no module keeps a list of them."""

    def __init__(self) -> None:
        sweep()
        self.owner = os.getpid()
        self.path = tempfile.mkdtemp(prefix=f"{PREFIX}{self.owner}-")
        atexit.register(self.remove)

    def remove(self) -> None:
        # Only the process that made it: a forked child (a worker started with fork) exits too.
        if os.getpid() == self.owner:
            shutil.rmtree(self.path, ignore_errors=True)
            atexit.unregister(self.remove)


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
