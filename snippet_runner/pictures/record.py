"""Pictures from real runs: what a snippet calls to show the autograd graph or a loss curve.

A snippet imports two functions and calls them where the picture belongs::

    from snippet_runner.pictures import show_graph, show_curves

    y = u ** 2
    show_graph(y)        # before y.backward(): it watches the gradients flow
    y.backward()

    show_curves({"loss": losses}, xlabel="epoch", ylabel="loss (MSE)")

Neither draws anything here. They record the picture's **data** (the graph's nodes, edges, values
and gradients, or the plotted series) in this module's list; run as ``python example.py`` that is
all they do, so the script prints exactly what the page prints and writes nothing. Inside the
engine, the worker's child hands the list back with the run's result
(:class:`~snippet_runner.messages.Picture`), the engine approves the data like an output (the
committed ``<snippet>.pictures.json``) and caches it with the result, and the build draws the SVG
from it (:mod:`snippet_runner.pictures.draw`). Drawing in the build, not here, keeps matplotlib and
Graphviz out of the sandboxed child and lets a warm build draw nothing.

**The graph walk is the one thing written by hand.** ``torchviz`` draws a ``grad_fn`` graph, but
only its node classes: no values, no gradients, no names. Here we walk ``grad_fn`` /
``next_functions`` ourselves and:

* name tensors as the snippet does, by looking up the caller's variables (and the parameters of any
  ``nn.Module`` among them, as ``model.weight``);
* record every leaf's value when ``show_graph`` is called (the value the forward pass used) and its
  ``.grad`` when the next ``backward()`` through the graph has finished (a callback queued on
  autograd's engine);
* register a hook on every backward node, so each edge carries the gradient that really flowed
  along it in that backward pass (the seed gradient on the edge into the root's node, too);
* optionally (``saved=True``) list what each node saved for the backward pass and whether that
  backward freed it, which is what ``retain_graph`` is about.

Only the first backward pass through the root after the call is recorded. A graph of more than
``MAX_NODES`` nodes is refused, and the message says how to draw a part (``stop_at=``).
"""

from __future__ import annotations

import math
import sys
from typing import Any

MAX_NODES = 60

_recorded: list[dict] = []  # what this process has shown, in order; see collected()


def collected() -> list[dict]:
    """Every picture shown so far, finished: ``{"kind", "line", "data"}`` each (the worker reads this)."""
    for record in _recorded:
        finish = record.pop("_finish", None)
        if finish is not None:
            finish()
    return [{"kind": r["kind"], "line": r["line"], "data": r["data"]} for r in _recorded]


def forget() -> None:
    """Drop every picture recorded so far (for tests that call the functions in one process)."""
    _recorded.clear()


# -- numbers -----------------------------------------------------------------------------------


def number(value: float) -> str:
    """A value as the picture shows it: 4 significant digits, no ``-0``, ``inf``/``nan`` as words."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.4g}"
    return "0" if text == "-0" else text


def tensor_text(tensor) -> str:
    """A tensor's values, short: ``2``, ``[1, 2, 3]``, or its shape and range when it is large."""
    t = tensor.detach().to("cpu").double()
    if t.numel() == 1:
        return number(t.item())
    if t.numel() <= 8:
        return _nested(t.tolist())
    return f"{'×'.join(map(str, t.shape))} values in [{number(t.min().item())}, {number(t.max().item())}]"


def _nested(values) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return number(values)


# -- the graph ---------------------------------------------------------------------------------


def show_graph(tensor, *, saved: bool = False, stop_at=(), title: str | None = None) -> None:
    """Show the autograd graph PyTorch recorded for ``tensor``; call it before ``tensor.backward()``.

    ``saved=True`` also lists what each backward node saved and whether the backward pass freed
    it. ``stop_at=[h]`` draws the graph only down to tensor ``h`` (for a graph too large to read).
    """
    import torch

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"show_graph() draws the autograd graph of a tensor; it was given a {type(tensor).__name__}")
    caller = sys._getframe(1)
    names, named = _names(caller)
    root_name = names.get(id(tensor), "output")
    if tensor.grad_fn is None:
        raise ValueError(
            f"show_graph({root_name}): {root_name} has no autograd graph, because no operation on a tensor"
            " with requires_grad=True produced it; show a tensor computed from one"
        )
    record: dict[str, Any] = {"kind": "graph", "line": caller.f_lineno, "data": {}}
    _Walk(tensor, root_name, names, named, saved, stop_at, title, record).start()  # may refuse
    _recorded.append(record)


def _names(frame) -> tuple[dict[int, str], list]:
    """``id(tensor) -> name`` for the caller's variables and the parameters of its modules, and
    the caller's tensors as ``(name, tensor)`` pairs, in the order they were defined."""
    import torch

    namespace = dict(frame.f_globals)
    namespace.update(frame.f_locals)
    names: dict[int, str] = {}
    named = []
    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
            named.append((name, value))
        elif isinstance(value, torch.nn.Module):
            for pname, parameter in value.named_parameters():
                names.setdefault(id(parameter), f"{name}.{pname}")
    return names, named


class _Walk:
    """One graph: built when ``show_graph`` is called, finished when its backward pass ends."""

    def __init__(self, root, root_name, names, named, saved, stop_at, title, record) -> None:
        self.root, self.root_name, self.names, self.named = root, root_name, names, named
        self.saved, self.title, self.record = saved, title, record
        self.stop_nodes = {t.grad_fn: t for t in stop_at if getattr(t, "grad_fn", None) is not None}
        self.ids: dict[Any, str] = {}  # backward node -> "f<n>"
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.flows: dict[tuple[str, int], str] = {}  # (node id, input index) -> gradient
        self.tensors: list[tuple[dict, Any]] = []  # (tensor node, tensor): .grad read at the end
        self.saved_of: list[tuple[dict, Any, list[str]]] = []
        self.seed: str | None = None
        self.active = False
        self.finished = False

    def start(self) -> None:
        root_node = self._tensor_node(self.root, self.root_name, leaf=False)
        seed = {"from": root_node["id"], "to": None, "grad": None, "kind": "seed"}
        self.edges.append(seed)
        seed["to"] = self._visit(self.root.grad_fn)
        # the caller's other non-leaf tensors that are outputs of nodes in this graph, by name
        shown = {id(self.root)} | {id(t) for t in self.stop_nodes.values()}
        for name, tensor in self.named:
            node = tensor.grad_fn
            if node is None or id(tensor) in shown or node not in self.ids or self.names.get(id(tensor)) != name:
                continue
            shown.add(id(tensor))
            entry = self._tensor_node(tensor, name, leaf=False)
            self.edges.append({"from": entry["id"], "to": self.ids[node], "grad": None, "kind": "grad_fn"})
        if len(self.nodes) > MAX_NODES:
            self.finished = True  # its hooks stay on the nodes, doing nothing
            raise ValueError(
                f"show_graph({self.root_name}): the graph has {len(self.nodes)} nodes, more than {MAX_NODES}"
                " can be read on a page; show a part of it with show_graph(" + self.root_name + ", stop_at=[t]),"
                " which draws it only down to an intermediate tensor t, or show a smaller model"
            )
        self.root.grad_fn.register_prehook(self._on_root)
        self.record["data"] = {"kind": "graph", "root": self.root_name, "title": self.title}
        self.record["_finish"] = self._finish

    # -- walking ------------------------------------------------------------------------------

    def _visit(self, node) -> str:
        if node in self.ids:
            return self.ids[node]
        node_id = f"f{len(self.ids)}"
        self.ids[node] = node_id
        name = type(node).__name__
        entry: dict[str, Any] = {"id": node_id, "type": "function", "name": name}
        self.nodes.append(entry)
        if self.saved:
            saved = [attr for attr in sorted(dir(node)) if attr.startswith("_saved_") and _is_tensor(node, attr)]
            entry["saved"] = [
                {"name": attr.removeprefix("_saved_"), "value": tensor_text(getattr(node, attr))} for attr in saved
            ]
            self.saved_of.append((entry, node, saved))
        if node in self.stop_nodes:
            tensor = self.stop_nodes[node]
            stop = self._tensor_node(tensor, self.names.get(id(tensor), "(unnamed)"), leaf=False)
            stop["continues"] = True
            self.edges.append({"from": stop["id"], "to": node_id, "grad": None, "kind": "grad_fn"})
            return node_id
        if hasattr(node, "variable"):  # AccumulateGrad: the leaf it fills
            leaf = node.variable
            tensor = self._tensor_node(leaf, self.names.get(id(leaf), "(unnamed leaf)"), leaf=True)
            self.edges.append(
                {"from": node_id, "to": tensor["id"], "grad": None, "kind": "accumulate", "_key": (node_id, -1)}
            )
        for index, (parent, _) in enumerate(node.next_functions):
            if parent is None:
                continue
            edge = {"from": node_id, "to": None, "grad": None, "kind": "flow", "_key": (node_id, index)}
            self.edges.append(edge)  # before the nodes below it, so edges read from the root down
            edge["to"] = self._visit(parent)
        node.register_hook(
            lambda grad_inputs, grad_outputs, node_id=node_id: self._on_node(node_id, grad_inputs, grad_outputs)
        )
        return node_id

    def _tensor_node(self, tensor, name: str, *, leaf: bool) -> dict:
        entry = {
            "id": f"t{sum(1 for n in self.nodes if n['type'] == 'tensor')}",
            "type": "tensor",
            "name": name,
            "leaf": leaf,
            "value": tensor_text(tensor),
        }
        self.nodes.append(entry)
        self.tensors.append((entry, tensor))
        return entry

    # -- the backward pass --------------------------------------------------------------------

    def _on_root(self, grad_outputs):
        import torch

        if self.finished or self.active:
            return None
        self.active = True
        self.seed = tensor_text(grad_outputs[0]) if grad_outputs and grad_outputs[0] is not None else None
        torch.autograd.Variable._execution_engine.queue_callback(self._finish)
        return None

    def _on_node(self, node_id, grad_inputs, grad_outputs):
        if not self.active:
            return None
        for index, grad in enumerate(grad_inputs):
            if grad is not None:
                self.flows[(node_id, index)] = tensor_text(grad)
        if grad_outputs and grad_outputs[0] is not None:
            self.flows[(node_id, -1)] = tensor_text(grad_outputs[0])  # what reached the node
        return None

    def _finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.active = False
        for entry, tensor in self.tensors:
            if entry["leaf"] or tensor.retains_grad:
                grad = tensor.grad
                entry["grad"] = None if grad is None else tensor_text(grad)
            else:
                entry["grad"] = None
                entry["grad_kept"] = False  # a non-leaf that did not call retain_grad() keeps none
        for entry, node, saved in self.saved_of:
            for item, attr in zip(entry["saved"], saved, strict=True):
                item["freed"] = _freed(node, attr)
        edges = []
        for edge in self.edges:
            key = edge.pop("_key", None)
            if edge["kind"] == "seed":
                edge["grad"] = self.seed
            elif key is not None:
                edge["grad"] = self.flows.get(key)
            edges.append(edge)
        self.record["data"].update(nodes=self.nodes, edges=edges, backward=self.seed is not None)
        self.record.pop("_finish", None)


def _is_tensor(node, attr: str) -> bool:
    import torch

    try:
        return isinstance(getattr(node, attr), torch.Tensor)
    except RuntimeError:
        return False


def _freed(node, attr: str) -> bool:
    try:
        getattr(node, attr)
    except RuntimeError:
        return True
    return False


# -- curves ------------------------------------------------------------------------------------


def show_curves(
    series: dict,
    *,
    x=None,
    xlabel: str = "epoch",
    ylabel: str = "loss",
    title: str | None = None,
    log: bool = False,
) -> None:
    """Plot one or more series of values the run computed, on one set of axes.

    ``series`` maps a label to a list of numbers (floats, or one-element tensors). ``x`` gives the
    horizontal positions (default 1, 2, 3 …); ``log=True`` puts the values on a log scale, for a
    loss that explodes. A value that is not finite is kept as ``null`` and not drawn.
    """
    caller = sys._getframe(1)
    if not isinstance(series, dict) or not series:
        raise TypeError("show_curves() takes a dict of {label: list of values}, with at least one entry")
    lengths = set()
    out: list[dict[str, Any]] = []
    for label, values in series.items():
        if not isinstance(label, str):
            raise TypeError(f"show_curves(): series labels must be strings, not {type(label).__name__}")
        try:
            ys = [_value(v) for v in values]
        except (TypeError, ValueError) as error:
            raise TypeError(f"show_curves(): the values of {label!r} must be numbers: {error}") from None
        if not ys:
            raise ValueError(f"show_curves(): the series {label!r} is empty")
        lengths.add(len(ys))
        out.append({"label": label, "y": ys})
    xs = list(range(1, max(lengths) + 1)) if x is None else [_value(v) for v in x]
    for item in out:
        if len(item["y"]) > len(xs):
            raise ValueError(f"show_curves(): {item['label']!r} has {len(item['y'])} values but x has {len(xs)}")
    if log and any(v is not None and v <= 0 for item in out for v in item["y"]):
        raise ValueError("show_curves(log=True): a log scale needs every value above 0")
    data = {"kind": "curves", "title": title, "xlabel": xlabel, "ylabel": ylabel, "log": log, "x": xs, "series": out}
    _recorded.append({"kind": "curves", "line": caller.f_lineno, "data": data})


def _value(v) -> float | None:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise TypeError(f"{v!r} is a {type(v).__name__}")
    v = float(v)
    if not math.isfinite(v):
        return None
    return float(f"{v:.6g}")
