"""The shape of a picture's data: what the snippet's process records, the engine approves as
``<snippet>.pictures.json`` and caches, and the build draws. One shape each, typed, so the recorder
and the drawing cannot disagree on a key unnoticed (mypy checks both sides)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class TensorNode(TypedDict):
    id: str
    type: Literal["tensor"]
    name: str  # as the snippet names it
    leaf: bool
    value: str  # printed as the graph shows it
    grad: str | None  # .grad after the backward pass: a leaf's, or a kept non-leaf's
    grad_kept: NotRequired[bool]  # a non-leaf whose .grad was kept (retain_grad)


class SavedTensor(TypedDict):
    name: str  # the attribute without its _saved_ prefix: self, other, result, ...
    value: str
    freed: NotRequired[bool]  # already freed by the backward pass (retain_graph=False)


class FunctionNode(TypedDict):
    id: str
    type: Literal["function"]
    name: str  # the backward node's class: MulBackward0, AccumulateGrad, ...
    saved: NotRequired[list[SavedTensor]]


# "from" is a keyword, hence the functional spelling. kind: "grad_fn" (a tensor to the node that made
# it), "seed" (where the pass starts), "flow" (node to node) or "accumulate" (into a leaf's .grad).
Edge = TypedDict("Edge", {"from": str, "to": str, "kind": str, "grad": str | None})


class Arrival(TypedDict):
    edge: int  # index into GraphData.edges: a "seed" or "flow" edge into the step's node
    grad: str  # what the node at its tail sent along it (the seed, for the "seed" edge)


class Sent(TypedDict):
    edge: int  # index into GraphData.edges: a "flow" edge out of the step's node, or its "accumulate" edge
    grad: str | None  # what the node sent along it (None: nothing, e.g. an input that needs no gradient)
    factor: NotRequired[str]  # the local derivative it multiplied by, in words ("2u = 20", "1", "w = 3")


# One backward node's run, as the engine's hooks saw it ("in", a keyword: what arrived on each incoming
# edge; with two or more, received[0] is the engine's sum of them).
Step = TypedDict(
    "Step",
    {
        "node": str,  # the function node's id ("f<n>")
        "received": list[str | None],  # the gradient on each of its outputs, as it ran (its grad_outputs)
        "in": list[Arrival],
        "sent": list[Sent],
        "leaf": NotRequired[str],  # AccumulateGrad: the id of the leaf's tensor node ...
        "grad_after": NotRequired[str | None],  # ... and that leaf's .grad just after the node ran
    },
)


class GraphData(TypedDict):
    kind: Literal["graph"]
    root: str
    title: str | None
    nodes: list[TensorNode | FunctionNode]
    edges: list[Edge]
    backward: bool  # whether the backward pass ran (and so whether the edges carry gradients)
    steps: NotRequired[list[Step]]  # the nodes in the order the engine ran them (only when backward ran)
    via: NotRequired[Literal["grad"]]  # torch.autograd.grad ran the pass: it returned the gradients, no .grad


class Series(TypedDict):
    label: str
    y: list[float | None]


class CurvesData(TypedDict):
    kind: Literal["curves"]
    title: str | None
    xlabel: str
    ylabel: str
    log: bool
    x: list[float]
    series: list[Series]


PictureData = GraphData | CurvesData
