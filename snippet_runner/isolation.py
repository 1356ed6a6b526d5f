"""Put back the interpreter-wide state a snippet may change, so the next one starts as if alone.

A snippet that calls ``torch.manual_seed(1)``, ``torch.set_default_dtype(torch.float64)``,
``torch.set_grad_enabled(False)`` or ``torch.set_num_threads(1)`` would otherwise change what every
later snippet prints. We snapshot that state before a run and restore it afterwards. torch and
numpy are only touched if they are already imported: this module never imports them itself.
"""

from __future__ import annotations

import copy
import os
import random
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


def _torch_state(torch) -> dict:
    from torch._tensor_str import PRINT_OPTS  # the only way to read back set_printoptions

    return {
        "rng": torch.get_rng_state(),
        "dtype": torch.get_default_dtype(),
        "grad": torch.is_grad_enabled(),
        "threads": torch.get_num_threads(),
        "anomaly": torch.is_anomaly_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "print": copy.copy(vars(PRINT_OPTS)),
    }


def _restore_torch(torch, state: dict) -> None:
    from torch._tensor_str import PRINT_OPTS

    torch.set_rng_state(state["rng"])
    if torch.get_default_dtype() != state["dtype"]:
        torch.set_default_dtype(state["dtype"])
    torch.set_grad_enabled(state["grad"])
    if torch.get_num_threads() != state["threads"]:
        torch.set_num_threads(state["threads"])
    if torch.is_anomaly_enabled() != state["anomaly"]:
        torch.set_anomaly_enabled(state["anomaly"])
    if torch.are_deterministic_algorithms_enabled() != state["deterministic"]:
        torch.use_deterministic_algorithms(state["deterministic"])  # 1.5 s the first time: only if changed
    vars(PRINT_OPTS).update(state["print"])


@contextmanager
def isolated(folder: Path, script: Path) -> Iterator[None]:
    """Run the body as ``python script`` would, from ``folder``, and undo its global side effects."""
    saved_cwd = os.getcwd()
    saved_path = list(sys.path)
    saved_argv = list(sys.argv)
    saved_env = dict(os.environ)
    saved_modules = set(sys.modules)
    saved_main = sys.modules.get("__main__")
    saved_random = random.getstate()
    torch = sys.modules.get("torch")
    numpy = sys.modules.get("numpy")
    torch_state = _torch_state(torch) if torch else None
    numpy_state = numpy.random.get_state() if numpy else None

    os.chdir(folder)
    sys.path.insert(0, str(folder))
    sys.argv = [script.name]
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.argv = saved_argv
        if os.environ != saved_env:
            os.environ.clear()
            os.environ.update(saved_env)
        for name in set(sys.modules) - saved_modules:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if module_file.startswith(str(folder)):
                del sys.modules[name]  # a local helper module is re-imported fresh next time
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        random.setstate(saved_random)
        if torch_state is not None:
            _restore_torch(torch, torch_state)
        if numpy_state is not None:
            numpy.random.set_state(numpy_state)
