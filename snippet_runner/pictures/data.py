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


# "from" is a keyword, so this one is spelled the functional way. kind: "grad_fn" (a tensor to the
# node that made it), "seed" (the gradient the pass starts from), "flow" (from one node to the next)
# or "accumulate" (into a leaf's .grad).
Edge = TypedDict("Edge", {"from": str, "to": str, "kind": str, "grad": str | None})


class GraphData(TypedDict):
    kind: Literal["graph"]
    root: str
    title: str | None
    nodes: list[TensorNode | FunctionNode]
    edges: list[Edge]
    backward: bool  # whether the backward pass ran (and so whether the edges carry gradients)


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
