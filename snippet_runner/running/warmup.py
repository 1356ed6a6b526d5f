"""Warm the worker, before it forks, with what the snippets will use.

Each snippet runs in a fork of the worker, so whatever a library sets up lazily, on its first use
in a process, is set up again in every fork that uses it, and lost when the fork ends. torch does
much of that: the first ``torch.optim.SGD(...)`` in a process imports ``torch._dynamo`` (hundreds
of modules, sympy among them), and only the first pays for it.
Paid once in the worker, before it forks, every fork inherits it.

What to warm is read from the snippets themselves, never from a list kept by hand:
:func:`touched` walks each snippet's syntax tree (``ast``) for the modules it imports and the dotted
names it reaches through them (``torch.optim.SGD``, ``nn.Linear`` after ``import torch.nn as nn``,
``SGD`` after ``from torch.optim import SGD``). In the worker, :func:`warm` imports each such module
and looks each name up (which imports torch's lazily loaded submodules), and rehearses the
subsystems that set themselves up on first use rather than on import: an optimizer class named is
built once on a throwaway parameter, stepped and zeroed; a module class named is built once if it
takes no arguments (the losses). Settings (``mkdocs.yml``, ``warm_up`` and ``warm_up_names``) can
turn it off or add names.

**Trust.** The worker runs unconfined, so it never imports what a snippet could have written: a
name from a snippet is warmed only if its top-level package is one the worker preloads (torch, by
``preload``), which the project chose. Names from the settings are the project's own.

**What the forks must not inherit.** Nothing here starts a thread (torch's thread pools start on
large operations, and a fork must not inherit a thread holding a lock), and the random number
generator's state is put back afterwards, so an unseeded snippet prints what it printed before;
warnings are silenced while it runs, and their once-only registries reset, so a warning the
rehearsal raised still reaches the snippet that raises it.

Looked at first: ``importlib.util.LazyLoader`` and ``python -X importtime`` say what a process
imports, not what a snippet will touch; torch offers no "initialize everything" call (its lazy
set-up is spread over decorators such as ``torch._disable_dynamo``).
"""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from collections.abc import Iterable


def touched(source: str) -> set[str]:
    """The modules ``source`` imports and the dotted names it reaches through them (empty if it
    does not parse: the run reports that)."""
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
        if isinstance(node, ast.Attribute):
            chain = _chain(node)
            if chain and chain[0] in aliases:
                found.add(".".join([aliases[chain[0]], *chain[1:]]))
    return found


def touched_by(sources: Iterable[str], roots: Iterable[str]) -> tuple[str, ...]:
    """Every name the sources touch whose top-level package is one of ``roots`` (the preloaded
    ones), sorted: what the worker is told to warm."""
    roots = set(roots)
    names = set()
    for source in sources:
        names |= {name for name in touched(source) if name.split(".")[0] in roots}
    return tuple(sorted(names))


def _chain(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def warm(names: Iterable[str]) -> list[str]:
    """In the worker, before it forks: import, look up and rehearse ``names``; returns those it
    could not resolve (a misspelt name, an attribute of an object the snippet makes itself)."""
    torch = sys.modules.get("torch")
    state = torch.get_rng_state() if torch is not None else None
    missing: list[str] = []
    # Quietly, and leaving no trace in the warnings' registries: a warning shown once here would
    # not be shown to the snippet (leaving catch_warnings resets them all).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _warm(names, torch, state, missing)
    return missing


def _warm(names, torch, state, missing: list[str]) -> None:
    try:
        for name in names:
            found = _resolve(name)
            if found is _MISSING:
                missing.append(name)
            elif isinstance(found, type) and torch is not None:
                _rehearse(found, torch)
    finally:
        if state is not None:
            torch.set_rng_state(state)  # a module's initial weights drew from it


_MISSING = object()


def _resolve(name: str):
    """The object ``name`` stands for, importing the longest module prefix of it first."""
    parts = name.split(".")
    found = _MISSING
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        except Exception:  # noqa: BLE001 - a module that fails to import: the snippet will say so
            return _MISSING
        break
    if found is _MISSING:
        return _MISSING
    for attribute in parts[end:]:
        try:
            found = getattr(found, attribute)
        except Exception:  # noqa: BLE001 - not there (yet): nothing to warm
            return _MISSING
    return found


def _rehearse(cls: type, torch) -> None:
    """Use once what sets itself up on first use: an optimizer, built on a throwaway parameter,
    stepped and zeroed; a module that takes no arguments, built."""
    try:
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
    except Exception:  # noqa: BLE001 - it needs arguments we cannot guess: left to the snippet
        pass
