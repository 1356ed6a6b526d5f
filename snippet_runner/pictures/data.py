"""The shape of a picture's data: what the snippet's process records, the engine approves as
``<snippet>.pictures.json`` and caches, and the build draws. One shape each, typed, so the recorder
and the drawing cannot disagree on a key unnoticed (mypy checks both sides). It is the schema the
build reads that data by, too (``running/protocol.py``): each string of its grammar (:class:`Text`),
and per kind (:data:`SCHEMAS`) what no field shows alone (an edge names nodes that exist)."""

import re
from typing import Annotated, Any, Literal, NotRequired, TypedDict


class Text:
    """``Annotated`` metadata: a string of at most ``most`` characters that ``pattern`` matches whole."""

    def __init__(self, pattern: str, most: int = 200):
        self.pattern, self.most = re.compile(pattern), most

    def __call__(self, value: str) -> str | None:  # why not, or None (as check_graph)
        return None if len(value) <= self.most and self.pattern.fullmatch(value) else "not of its grammar"


IDENTIFIER = r"[^\W\d]\w*"
TensorId = Annotated[str, Text(r"t\d{1,3}")]
FunctionId = Annotated[str, Text(r"f\d{1,3}")]
NodeId = Annotated[str, Text(r"[tf]\d{1,3}")]
Name = Annotated[str, Text(rf"{IDENTIFIER}(\.\w+)*|\(unnamed( leaf)?\)")]  # a variable, model.0.weight
ClassName = Annotated[str, Text(IDENTIFIER)]
Value = Annotated[str, Text(r"[\w .,×+\-\[\]]*")]  # 2, [1, 2], 3 by 4 values in [-1, 2], inf, nan, 1e+05
Factor = Annotated[str, Text(r"[\w .,×·^=+\-\[\]()]*")]  # 2u = 20, w = 3, 2·loss^2 = 8, (its input)
Label = Annotated[str, Text(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029]*")]  # free text on one line: escaped where shown


class TensorNode(TypedDict):
    id: TensorId
    type: Literal["tensor"]
    name: Name  # as the snippet names it
    leaf: bool
    value: Value  # printed as the graph shows it
    grad: Value | None  # .grad after the backward pass: a leaf's, or a kept non-leaf's
    grad_kept: NotRequired[bool]  # a non-leaf whose .grad was kept (retain_grad)
    continues: NotRequired[bool]  # where a graph drawn down to stop_at= stops


class SavedTensor(TypedDict):
    name: ClassName  # the attribute without its _saved_ prefix: self, other, result, ...
    value: Value
    freed: NotRequired[bool]  # already freed by the backward pass (retain_graph=False)


class FunctionNode(TypedDict):
    id: FunctionId
    type: Literal["function"]
    name: ClassName  # the backward node's class: MulBackward0, AccumulateGrad, ...
    saved: NotRequired[list[SavedTensor]]


# "from" is a keyword, hence the functional spelling. kind: "grad_fn" (a tensor to the node that made
# it), "seed" (where the pass starts), "flow" (node to node) or "accumulate" (into a leaf's .grad).
EdgeKind = Literal["grad_fn", "seed", "flow", "accumulate"]
Edge = TypedDict("Edge", {"from": NodeId, "to": NodeId, "kind": EdgeKind, "grad": Value | None})


class Arrival(TypedDict):
    edge: int  # index into GraphData.edges: a "seed" or "flow" edge into the step's node
    grad: Value  # what the node at its tail sent along it (the seed, for the "seed" edge)


class Sent(TypedDict):
    edge: int  # index into GraphData.edges: a "flow" edge out of the step's node, or its "accumulate" edge
    grad: Value | None  # what the node sent along it (None: nothing, e.g. an input that needs no gradient)
    factor: NotRequired[Factor]  # the local derivative it multiplied by, in words ("2u = 20", "1", "w = 3")


# One backward node's run, as the engine's hooks saw it ("in", a keyword: what arrived on each incoming
# edge; with two or more, received[0] is the engine's sum of them).
Step = TypedDict(
    "Step",
    {
        "node": FunctionId,
        "received": list[Value | None],  # the gradient on each of its outputs, as it ran (its grad_outputs)
        "in": list[Arrival],
        "sent": list[Sent],
        "leaf": NotRequired[TensorId],  # AccumulateGrad: the id of the leaf's tensor node ...
        "grad_after": NotRequired[Value | None],  # ... and that leaf's .grad just after the node ran
    },
)


class GraphData(TypedDict):
    kind: Literal["graph"]
    root: Name
    title: Label | None
    nodes: list[TensorNode | FunctionNode]
    edges: list[Edge]
    backward: bool  # whether the backward pass ran (and so whether the edges carry gradients)
    steps: NotRequired[list[Step]]  # the nodes in the order the engine ran them (only when backward ran)
    via: NotRequired[Literal["grad"]]  # torch.autograd.grad ran the pass: it returned the gradients, no .grad


class Series(TypedDict):
    label: Label
    y: list[float | None]


class CurvesData(TypedDict):
    kind: Literal["curves"]
    title: Label | None
    xlabel: Label
    ylabel: Label
    log: bool
    x: list[float]
    series: list[Series]


PictureData = GraphData | CurvesData


def check_graph(data: GraphData) -> str | None:
    """What no field of a graph shows alone: each id made once, each edge and step naming what exists."""
    ids = [node["id"] for node in data["nodes"]]
    functions = {node["id"] for node in data["nodes"] if node["type"] == "function"}
    steps = data.get("steps", [])
    used = [item["edge"] for step in steps for item in (*step["in"], *step["sent"])]
    if len(set(ids)) < len(ids) or any(e["from"] not in ids or e["to"] not in ids for e in data["edges"]):
        return "an id given twice, or an edge to a node that is not one"
    if any(s["node"] not in functions or s.get("leaf", ids[0]) not in ids for s in steps):
        return "a step of a node that is not one"
    return None if all(0 <= edge < len(data["edges"]) for edge in used) else "a step on an edge that is not one"


def check_curves(data: CurvesData) -> str | None:
    return None if all(len(s["y"]) <= len(data["x"]) for s in data["series"]) else "more values than x has"


# Each kind of picture by its name (its setting's word, its data's "kind"): its data's schema.
# record.RECORDERS and draw.DRAWERS hold the same names (a test keeps the three in step).
SCHEMAS: dict[str, Any] = {"graph": Annotated[GraphData, check_graph], "curves": Annotated[CurvesData, check_curves]}
