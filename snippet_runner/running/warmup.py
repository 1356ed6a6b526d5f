"""Warm the worker, before it forks, with what the snippets will use.

What a library sets up lazily, on first use in a process, would be set up again in every fork and lost with it (the
first ``torch.optim.SGD(...)`` imports ``torch._dynamo``); done once in the worker, every fork inherits it. What to warm
is read from the snippets' syntax trees, not a hand-kept list (:func:`touched`); :func:`warm` imports and looks up each
name and rehearses optimizers and argument-less modules. ``warm_up`` and ``warm_up_names`` in ``mkdocs.yml`` turn it off
or add names.

**Trust.** The worker runs unconfined, so a name from a snippet is warmed only if its top-level package is one the
project preloads (torch); names from the settings are the project's own.

**What the forks must not inherit**: no thread is started (a fork must not inherit one holding a lock); the random
generator's state is put back, so an unseeded snippet prints what it did before; warnings are silenced and their
once-only registries reset, so a snippet still sees them. (``LazyLoader`` and ``-X importtime`` say what a process
imports, not what a snippet touches; torch has no "initialize everything" call.)
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import sys
import warnings
from collections.abc import Iterable


def touched(source: str) -> set[str]:
    """The modules ``source`` imports and the dotted names it reaches through them (none if it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    aliases: dict[str, str] = {}  # a name bound by an import -> what it stands for
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
                local = alias.asname or alias.name.split(".")[0]
                aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                    found.add(f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        parts, root = [], node
        while isinstance(root, ast.Attribute):
            parts.append(root.attr)
            root = root.value
        if parts and isinstance(root, ast.Name) and root.id in aliases:
            found.add(".".join([aliases[root.id], *reversed(parts)]))
    return found


def touched_by(sources: Iterable[str], roots: Iterable[str]) -> tuple[str, ...]:
    """What the worker is told to warm: every name the sources touch in the ``roots`` (preloaded) packages."""
    roots = set(roots)
    return tuple(sorted({name for source in sources for name in touched(source) if name.split(".")[0] in roots}))


def warm(names: Iterable[str]) -> list[str]:
    """In the worker, before it forks: import, look up and rehearse ``names``; returns those it
    could not resolve (a misspelt name, an attribute of an object the snippet makes itself)."""
    torch = sys.modules.get("torch")
    state = torch.get_rng_state() if torch is not None else None
    missing: list[str] = []
    # leaving catch_warnings resets the registries: a warning shown once here still reaches the snippet
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for name in names:
                found = _resolve(name)
                if found is _MISSING:
                    missing.append(name)
                elif isinstance(found, type) and torch is not None:
                    _rehearse(found, torch)
        finally:
            if torch is not None:
                torch.set_rng_state(state)  # a module's initial weights drew from it
    return missing


_MISSING = object()


def _resolve(name: str):
    """The object ``name`` stands for, importing the longest module prefix of it first."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
            break
        except ImportError:
            continue
        except Exception:  # noqa: BLE001 - a module that fails to import: the snippet will say so
            return _MISSING
    else:
        return _MISSING
    for attribute in parts[end:]:
        try:
            found = getattr(found, attribute)
        except Exception:  # noqa: BLE001 - not there (yet): nothing to warm
            return _MISSING
    return found


def _rehearse(cls: type, torch) -> None:
    """Use once what sets itself up on first use: an optimizer (stepped and zeroed), an argument-less module."""
    with contextlib.suppress(Exception):  # one that needs arguments we cannot guess is left to the snippet
        if issubclass(cls, torch.optim.Optimizer) and cls is not torch.optim.Optimizer:
            parameter = torch.zeros(1, requires_grad=True)
            try:
                optimizer = cls([parameter])
            except TypeError:  # it has no default learning rate
                optimizer = cls([parameter], lr=0.01)
            parameter.grad = torch.ones(1)
            optimizer.step()
            optimizer.zero_grad()
        elif issubclass(cls, torch.nn.Module):
            cls()
