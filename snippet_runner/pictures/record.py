"""Pictures from real runs, recorded in the snippet's own process (the worker's child): no helper in its code.

A hidden ``# snippet:`` setting names what to draw. **graph NAME**: a profiler (``sys.setprofile``, and
``threading.setprofile`` for the snippet's threads) sees each call of ``torch.autograd.backward`` (``Tensor.backward``
calls it) and of ``torch.autograd.grad`` (whose pass returns its gradients and fills no ``.grad``); it adds no frame, so
warnings keep the snippet's file and line, and only snippets with a graph setting pay for it. At the first call whose
roots hold ``NAME`` (in the snippet's globals or its own frames), the graph is walked and given PyTorch's public hooks
before the pass runs, and ``.grad`` is read when that call returns: the picture holds the values and gradients that
really flowed, what each node saved and whether backward freed it, and ``steps`` in the engine's own order
(:mod:`snippet_runner.pictures.steps`). **curves NAME ...**: each named list of numbers, when the run ends. A setting
the run cannot satisfy fails the build with its line, as does a pass in several threads (no one order) or a graph over
``MAX_NODES`` (``stop_at=NAME`` draws a part). Not used: sphinx-gallery's scrapers (matplotlib in every plotting
snippet, for data the run already holds), torchviz (no values, gradients or names). The data is approved like an output
(``<snippet>.pictures.json``); :mod:`snippet_runner.pictures.draw` draws it outside the sandbox.
"""

from __future__ import annotations

import inspect
import math
import sys
import threading
from collections.abc import Callable
from typing import Any

from snippet_runner.pictures.data import CurvesData, Series

MAX_NODES = 60
MAX_EDGES = 2 * MAX_NODES  # a node may feed one input twice (x * x), so edges may outnumber nodes


class Watch:
    """The pictures one run asked for: installed before the snippet runs, read once it ended."""

    def __init__(self, settings, namespace: dict, path: str):
        self.settings = [(kind, int(line), dict(options)) for kind, line, options in settings]
        self.namespace, self.path = namespace, str(path)
        self.graphs: dict[int, _Walk] = {}  # setting line -> its walk, once its backward began
        self.errors: dict[int, str] = {}
        self.seen: dict[int, Any] = {}  # setting line -> the last value its name had on the stack
        self.profiles: tuple | None = None  # the profilers to put back on close()
        if any(kind == "graph" for kind, _, _ in self.settings):
            self.backward = _pass_codes()
            self.profiles = (sys.getprofile(), threading.getprofile())
            sys.setprofile(self._profile)
            threading.setprofile(self._profile)  # a backward() in a thread the snippet starts

    def _profile(self, frame, event: str, arg) -> None:
        """The profiler hook: only calls of ``torch.autograd.backward`` (``Tensor.backward`` calls it) or
        ``torch.autograd.grad`` matter; their first parameters, ``tensors`` and ``outputs``, are the roots."""
        if frame.f_code not in self.backward:
            return
        if event == "call":
            roots = frame.f_locals.get("tensors", frame.f_locals.get("outputs"))
            self._before_backward(roots, frame)
        elif event == "return":
            for walk in self.graphs.values():
                if walk.call is frame:  # the call whose pass began the walk has ended: read .grad
                    walk.finish()

    def close(self) -> None:
        """Put the profilers back: the tests watch in their own process."""
        if self.profiles is not None:
            sys.setprofile(self.profiles[0])
            threading.setprofile(self.profiles[1])
            self.profiles = None

    def _before_backward(self, tensors, frame) -> None:
        import torch

        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        for kind, line, options in self.settings:
            if kind != "graph" or line in self.graphs or line in self.errors:
                continue
            found = self._frame_holding(options["name"], frame)
            if found is None:
                continue
            namespace, value = found
            self.seen[line] = value
            if not any(value is root for root in roots):
                continue
            try:
                self.graphs[line] = _Walk(value, options, namespace)
                if frame.f_code is _pass_codes()[1]:
                    self.graphs[line].data["via"] = "grad"
            except ValueError as error:
                self.errors[line] = str(error)

    def _frame_holding(self, name: str, frame):
        """(namespace, value) of ``name`` in the innermost of the snippet's frames that has it, else its globals."""
        while frame is not None:
            if frame.f_code.co_filename == self.path and name in frame.f_locals:
                return {**frame.f_globals, **frame.f_locals}, frame.f_locals[name]
            frame = frame.f_back
        if name in self.namespace:
            return self.namespace, self.namespace[name]
        return None

    def results(self) -> tuple[list[dict], list[tuple[int, str]]]:
        """The pictures, in the order of their settings, and the settings that failed."""
        pictures = []
        for kind, line, options in self.settings:
            if line in self.errors:
                continue
            try:
                if kind not in RECORDERS:
                    raise ValueError(f"'# snippet: {kind}' is no kind of picture this engine records")
                pictures.append({"kind": kind, "line": line, "data": RECORDERS[kind](self, line, options)})
            except (TypeError, ValueError) as error:
                self.errors[line] = str(error)
        return pictures, sorted(self.errors.items())

    def _graph(self, line: int, options: dict) -> dict:
        """The graph of a ``graph`` setting, once the run ended; ``ValueError`` if there is none."""
        import torch

        walk = self.graphs.get(line)
        if walk is not None:
            walk.finish()  # if no backward() call has returned since its pass began
            if walk.error is not None:
                raise ValueError(walk.error)
            return walk.data
        name = options["name"]
        value = self.namespace.get(name, self.seen.get(line))
        if name not in self.namespace and line not in self.seen:
            raise ValueError(f"'# snippet: graph {name}' names no variable of the snippet")
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                f"'# snippet: graph {name}' names a {type(value).__name__}, not a tensor;"
                " name the tensor whose backward() draws the graph"
            )
        if value.grad_fn is None:
            raise ValueError(_no_graph(name))
        raise ValueError(
            f"'# snippet: graph {name}': {name} never went backward, so there is no backward pass"
            f" to draw; call {name}.backward(), or name the tensor the snippet calls backward() on"
        )


def _pass_codes() -> tuple:
    """The code of the two public calls that run a backward pass."""
    import torch

    return (torch.autograd.backward.__code__, torch.autograd.grad.__code__)


def _no_graph(name: str) -> str:
    return (
        f"'# snippet: graph {name}': {name} has no autograd graph, because no operation on a"
        " tensor with requires_grad=True produced it; name a tensor computed from one"
    )


def number(value: float) -> str:
    """A value as the picture shows it: 4 significant digits (``inf``, ``nan`` as words), no ``-0``."""
    text = f"{float(value):.4g}"
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
    return "[" + ", ".join(map(_nested, values)) + "]" if isinstance(values, list) else number(values)


def _names(namespace: dict) -> tuple[dict[int, str], list]:
    """``id(tensor) -> name`` (modules' parameters too), and the tensors as ``(name, tensor)`` in order."""
    import torch

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
    """One graph: built as its backward pass starts, finished when that pass ends."""

    def __init__(self, root, options: dict, namespace: dict) -> None:
        self.root, self.root_name, self.saved = root, options["name"], bool(options.get("saved"))
        self.names, self.named = _names(namespace)
        if root.grad_fn is None:
            raise ValueError(_no_graph(self.root_name))
        stop = namespace.get(options.get("stop_at", ""))
        if "stop_at" in options and stop is None:
            raise ValueError(f"'# snippet: graph {self.root_name} stop_at={options['stop_at']}' names no variable")
        stop_node = getattr(stop, "grad_fn", None)
        self.stop_nodes = {stop_node: stop} if stop_node is not None else {}
        self.data: dict[str, Any] = {"kind": "graph", "root": self.root_name, "title": options.get("title")}
        self.error: str | None = None
        self.call: Any = None  # the torch.autograd.backward frame whose return ends the pass
        self.ids: dict[Any, str] = {}  # backward node -> "f<n>"
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.flows: dict[tuple[str, int], str] = {}  # (node id, input index) -> gradient
        self.tensors: list[tuple[dict, Any]] = []  # (tensor node, tensor): .grad read at the end
        self.saved_of: list[tuple[dict, Any, list[str]]] = []
        self.leaf_of: dict[str, tuple[dict, Any]] = {}  # AccumulateGrad's id -> its leaf (node, tensor)
        self.seed: str | None = None
        self.finished = False
        self.steps: list[dict] = []  # one per node, in the order autograd's engine ran them (_on_node)
        self.incoming: dict[str, list[int]] = {}  # node id -> the edges (indices) that bring it a gradient
        self.outgoing: dict[str, list[tuple[int, int]]] = {}  # node id -> (edge index, input index)
        self.factors: dict[str, dict[int, str]] = {}  # node id -> input index -> its local derivative, in words
        self.thread: int | None = None  # the thread the backward pass started in; None: not yet
        self.wide: str | None = None  # why a step would be too large to show, if it would
        self.threads: set[int] = set()
        self._start()  # its prehook on the root's node sees the backward pass begin

    def _start(self) -> None:
        root_node = self._tensor_node(self.root, self.root_name, leaf=False)
        seed = {"from": root_node["id"], "to": None, "grad": None, "kind": "seed"}
        self.edges.append(seed)
        self.root.grad_fn.register_prehook(self._on_root)  # first, so it runs before the node's own prehook
        seed["to"] = self._visit(self.root.grad_fn)
        self.incoming.setdefault(seed["to"], []).insert(0, 0)
        # the caller's other non-leaf tensors that are outputs of nodes in this graph, by name
        shown = {id(self.root)} | {id(t) for t in self.stop_nodes.values()}
        for name, tensor in self.named:
            node = tensor.grad_fn
            if node is None or id(tensor) in shown or node not in self.ids or self.names.get(id(tensor)) != name:
                continue
            shown.add(id(tensor))
            entry = self._tensor_node(tensor, name, leaf=False)
            self.edges.append({"from": entry["id"], "to": self.ids[node], "grad": None, "kind": "grad_fn"})
        if len(self.nodes) > MAX_NODES or len(self.edges) > MAX_EDGES:
            self.finished = True  # its hooks stay on the nodes, doing nothing
            size = (
                f"{len(self.nodes)} nodes, more than {MAX_NODES}"
                if len(self.nodes) > MAX_NODES
                else f"{len(self.edges)} edges, more than {MAX_EDGES}"
            )
            raise ValueError(
                f"'# snippet: graph {self.root_name}': the graph has {size} can be read on a page; draw a part of it with"
                f" '# snippet: graph {self.root_name} stop_at=t', which draws it only down to an"
                " intermediate tensor t, or show a smaller model"
            )

    def _visit(self, node) -> str:
        if node in self.ids:
            return self.ids[node]
        node_id = f"f{len(self.ids)}"
        self.ids[node] = node_id
        entry: dict[str, Any] = {"id": node_id, "type": "function", "name": type(node).__name__}
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
            self.outgoing.setdefault(node_id, []).append((len(self.edges), -1))
            self.edges.append(
                {"from": node_id, "to": tensor["id"], "grad": None, "kind": "accumulate", "_key": (node_id, -1)}
            )
            self.leaf_of[node_id] = (tensor, leaf)
        for index, (parent, _) in enumerate(node.next_functions):
            if parent is None:
                continue
            edge = {"from": node_id, "to": None, "grad": None, "kind": "flow", "_key": (node_id, index)}
            edge_index = len(self.edges)
            self.outgoing.setdefault(node_id, []).append((edge_index, index))
            self.edges.append(edge)  # before the nodes below it, so edges read from the root down
            target = edge["to"] = self._visit(parent)
            self.incoming.setdefault(target, []).append(edge_index)
        node.register_prehook(lambda grad_outputs, node=node, node_id=node_id: self._before_node(node, node_id))
        node.register_hook(
            lambda grad_inputs, grad_outputs, node_id=node_id: self._on_node(node_id, grad_inputs, grad_outputs)
        )
        return node_id

    def _tensor_node(self, tensor, name: str, *, leaf: bool) -> dict:
        number = sum(1 for n in self.nodes if n["type"] == "tensor")
        entry = {"id": f"t{number}", "type": "tensor", "name": name, "leaf": leaf, "value": tensor_text(tensor)}
        self.nodes.append(entry)
        self.tensors.append((entry, tensor))
        return entry

    def _on_root(self, grad_outputs):
        if self.finished or self.thread is not None:
            return None
        self.thread = threading.get_ident()
        self.seed = tensor_text(grad_outputs[0]) if grad_outputs and grad_outputs[0] is not None else None
        frame = inspect.currentframe()
        while frame is not None and frame.f_code not in _pass_codes():
            frame = frame.f_back
        self.call = frame
        return None

    def _before_node(self, node, node_id: str):
        """Read, before the node runs (and frees them), what it saved: its local derivatives."""
        if self.thread is not None and not self.finished:
            self.threads.add(threading.get_ident())
            if self.thread == threading.get_ident():
                self.factors[node_id] = _factors(node, self._input_name)
        return None

    def _on_node(self, node_id, grad_inputs, grad_outputs):
        """The node has run: its hook's call is its step, so the steps' order is the engine's."""
        if self.thread is None or self.finished:
            return None
        self.threads.add(threading.get_ident())
        if threading.get_ident() != self.thread:
            return None  # another thread's pass through a shared node: finish() refuses the record
        for index, grad in enumerate(grad_inputs):
            if grad is not None:
                self.flows[(node_id, index)] = tensor_text(grad)
        if grad_outputs and grad_outputs[0] is not None:
            self.flows[(node_id, -1)] = tensor_text(grad_outputs[0])  # what reached the node
        grads = [(index, self._grad(self.edges[index])) for index in self.incoming.get(node_id, [])]
        arrived = [{"edge": index, "grad": grad} for index, grad in grads if grad is not None]
        factors = self.factors.get(node_id, {})
        sent = []
        for edge_index, index in self.outgoing.get(node_id, []):
            grad = self.flows.get((node_id, index))
            item: dict[str, Any] = {"edge": edge_index, "grad": grad}
            if index in factors and grad is not None:
                item["factor"] = factors[index]
            sent.append(item)
        if len(grad_outputs) > MAX_EDGES:
            self.wide = self.wide or f"{len(grad_outputs)} outputs of one node"
        received = [None if g is None else tensor_text(g) for g in grad_outputs[:MAX_EDGES]]
        step: dict[str, Any] = {"node": node_id, "received": received, "in": arrived, "sent": sent}
        if node_id in self.leaf_of:
            entry, leaf = self.leaf_of[node_id]
            step["leaf"] = entry["id"]
            step["grad_after"] = None if leaf.grad is None else tensor_text(leaf.grad)
        self.steps.append(step)
        return None

    def _grad(self, edge: dict) -> str | None:
        """What flowed along ``edge`` so far: the seed, or what its node gave that input (by ``_key``)."""
        key = edge.get("_key")  # a grad_fn edge has none: no gradient flows along it
        return self.seed if edge["kind"] == "seed" else None if key is None else self.flows.get(key)

    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.call = None
        for entry, tensor in self.tensors:
            if entry["leaf"] or tensor.retains_grad:
                entry["grad"] = None if tensor.grad is None else tensor_text(tensor.grad)
            else:
                entry["grad"] = None
                entry["grad_kept"] = False  # a non-leaf that did not call retain_grad() keeps none
        for entry, node, saved in self.saved_of:
            for item, attr in zip(entry["saved"], saved, strict=True):
                item["freed"] = not _is_tensor(node, attr)  # reading a freed one raises
        for edge in self.edges:
            edge["grad"] = self._grad(edge)
            edge.pop("_key", None)
        self.data.update(nodes=self.nodes, edges=self.edges, backward=self.seed is not None)
        if self.seed is not None:
            self.data["steps"] = self.steps
        if len(self.threads) > 1:
            self.error = (
                f"'# snippet: graph {self.root_name}': its backward pass ran in {len(self.threads)} threads, so its"
                " steps have no one order to show; call backward() once, from one thread, while the graph is drawn"
            )
        elif self.wide is not None:
            self.error = (
                f"'# snippet: graph {self.root_name}': its backward pass has a node with {self.wide}, more"
                f" than {MAX_EDGES} can be shown in a step; draw a smaller graph"
            )
        elif self.seed is not None and not self.steps:
            self.error = (
                f"'# snippet: graph {self.root_name}': its backward pass ran none of the graph's nodes, so there"
                " are no steps to show"
            )

    def _input_name(self, node, index: int) -> str | None:
        """The snippet's name for input ``index`` of ``node`` (a leaf, or a named non-leaf), if any."""
        parent = node.next_functions[index][0] if index < len(node.next_functions) else None
        if parent is None:
            return None
        if hasattr(parent, "variable"):
            return self.names.get(id(parent.variable))
        return next((n for n, t in self.named if t.grad_fn is parent and self.names.get(id(t)) == n), None)


def _factors(node, input_name) -> dict[int, str]:
    """Input index -> the local derivative ``node`` multiplies by for it, in words, for a sum, a
    product or a power; read from what the node saved, before it runs. Other nodes get none."""
    import torch

    kind = type(node).__name__
    try:
        if kind in ("AddBackward0", "SubBackward0"):
            alpha = float(node._saved_alpha)
            return {0: "1", 1: number(-alpha if kind == "SubBackward0" else alpha)}
        if kind == "MulBackward0":
            one, other = node._saved_self, node._saved_other
            out = {}
            for index, factor, partner in ((0, other, 1), (1, one, 0)):
                if isinstance(factor, torch.Tensor):
                    name = _short_name(input_name(node, partner))
                    value = tensor_text(factor)
                    out[index] = f"{name} = {value}" if name else value
            return out
        if kind == "PowBackward0":
            exponent, base = float(node._saved_exponent), node._saved_self
            if not isinstance(base, torch.Tensor):
                return {}
            value = tensor_text(exponent * base.detach().double() ** (exponent - 1))
            name = _short_name(input_name(node, 0)) or "(its input)"
            joined = name if len(name) == 1 else f"·{name}"  # 2u, but 2·loss
            power = "" if exponent == 2 else f"^{number(exponent - 1)}"
            return {0: f"{number(exponent)}{joined}{power} = {value}"}
    except (AttributeError, RuntimeError, TypeError, ValueError):
        return {}
    return {}


def _short_name(name: str | None) -> str | None:
    """A name short enough for a step's sentence (a step's strings stay under 200 characters)."""
    return name if name is not None and len(name) <= 40 else None


def _is_tensor(node, attr: str) -> bool:
    import torch

    try:
        return isinstance(getattr(node, attr), torch.Tensor)
    except RuntimeError:
        return False


def _curves(options: dict, namespace: dict) -> CurvesData:
    """The data of a ``curves`` setting, from the variables the run left in ``namespace``."""
    out: list[Series] = []
    for series in options["series"]:
        name, column, label = series["name"], series["column"], series["label"]
        shown = name if column is None else f"{name}[:,{column}]"
        if name not in namespace:
            raise ValueError(f"'# snippet: curves {shown}' names no variable of the snippet")
        try:
            ys = [_value(v if column is None else v[column]) for v in namespace[name]]
        except (TypeError, ValueError, IndexError, KeyError) as error:
            raise TypeError(
                f"'# snippet: curves {shown}': {name} must be a list of numbers"
                f"{'' if column is None else f' (item {column} of each entry)'}: {error}"
            ) from None
        if not ys:
            raise ValueError(f"'# snippet: curves {shown}': {name} is empty, so there is nothing to plot")
        out.append({"label": label, "y": ys})
    if "x" in options:
        if options["x"] not in namespace:
            raise ValueError(f"'# snippet: curves ... x={options['x']}' names no variable of the snippet")
        try:
            xs = [_finite(v) for v in namespace[options["x"]]]
        except TypeError as error:
            raise TypeError(
                f"'# snippet: curves ... x={options['x']}' must name a list of finite numbers: {error}"
            ) from None
    else:
        xs = list(range(1, max(len(item["y"]) for item in out) + 1))
    for item in out:
        if len(item["y"]) > len(xs):
            raise ValueError(f"'# snippet: curves': {item['label']!r} has {len(item['y'])} values but x has {len(xs)}")
    log = bool(options.get("log"))
    if log and any(v is not None and v <= 0 for item in out for v in item["y"]):
        raise ValueError("'# snippet: curves ... log': a log scale needs every value above 0")
    title, xlabel, ylabel = options.get("title"), options.get("xlabel", "epoch"), options.get("ylabel", "loss")
    return {"kind": "curves", "title": title, "xlabel": xlabel, "ylabel": ylabel, "log": log, "x": xs, "series": out}


# Each kind of picture by its name (its setting's word): what records its data once the run ended.
# data.SCHEMAS and draw.DRAWERS hold the same names.
RECORDERS: dict[str, Callable[[Watch, int, dict], Any]] = {
    "graph": Watch._graph,
    "curves": lambda watch, line, options: _curves(options, watch.namespace),
}


def _finite(v) -> float:
    if (x := _value(v)) is None:
        raise TypeError(f"{v!r} is not finite")
    return x


def _value(v) -> float | None:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise TypeError(f"{v!r} is a {type(v).__name__}")
    return float(f"{v:.6g}") if math.isfinite(v) else None
