"""Draw a snippet's pictures as SVG at build time (never in the sandboxed child), from their checked data.

Graphs are laid out by Graphviz (:mod:`snippet_runner.pictures.vizjs`), curves by matplotlib's SVG
backend with text kept as text, a fixed hash salt and no date, so the same data gives the same bytes.
The SVG is inlined, so it takes the page's colours in either palette and its text is real text, also
in the PDF; its ids are prefixed per picture (no clash on the print page) and come from the data (so
``assets/backward-steps.js`` lights up each step). It is cached by its data, this code and the
drawing libraries' versions.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from snippet_runner.errors import SnippetError
from snippet_runner.files import write_atomic
from snippet_runner.machine import pinned
from snippet_runner.pictures import steps, vizjs
from snippet_runner.pictures.data import CurvesData, GraphData, PictureData
from snippet_runner.pictures.record import number as _num

if TYPE_CHECKING:
    from snippet_runner.checking.engine import Engine

D = TypeVar("D", GraphData, CurvesData)

FG = "#010203"  # placeholder colours, replaced after drawing (see _themed)
SERIES = ("#fe0001", "#fe0002", "#fe0003", "#fe0004")
LEAF = "#fe0010"
THEME = {
    FG: "currentColor",
    SERIES[0]: "var(--snippet-picture-1, #c43e00)",
    SERIES[1]: "var(--snippet-picture-2, #0b62c4)",
    SERIES[2]: "var(--snippet-picture-3, #2e7d32)",
    SERIES[3]: "var(--snippet-picture-4, #7b1fa2)",
    LEAF: "var(--snippet-picture-leaf, rgba(255, 112, 67, 0.18))",
}
FONT = "DejaVu Sans"  # the PDF embeds it (assets/print.css); matplotlib ships it


class Drawer:
    """Draws pictures, with an SVG cache in ``folder`` (``None``: no cache), noting in ``drawings`` what
    each cost: its seconds, or ``None`` from the cache (the build's own list: ``Engine.drawings``)."""

    def __init__(
        self, folder: Path | None, drawings: list[float | None] | None = None, layout: vizjs.Layout | None = None
    ):
        self.folder = folder
        self.drawings = [] if drawings is None else drawings
        self.layout = layout  # None: each graph starts a Node of its own

    @classmethod
    def of(cls, engine: Engine) -> Drawer:
        """The drawer of ``engine``'s build: its cache, its list of what drawing cost, its graph layout."""
        folder = engine.cache.folder / "pictures" if engine.cache is not None else None
        return cls(folder, engine.drawings, engine.layout)

    def figure(self, picture, snippet, number: int) -> str:
        """The ``<figure>`` for the ``number``-th picture of ``snippet``; ``SnippetError`` if it cannot be drawn."""
        prefix = picture_prefix(snippet.rel, number)
        svg = self.svg(picture, snippet, prefix)
        caption, _ = describe(picture.data)
        played = _kind(picture.data).after(picture.data, prefix)
        # the steps follow the figure, not inside it: on paper a figure is never split across
        # sheets (assets/print.css), and its list of steps may be
        return (
            f'<figure class="snippet-picture snippet-picture-{picture.kind}" id="{prefix}">'
            f"{svg}<figcaption>{escape(caption)}</figcaption></figure>{played}"
        )

    def svg(self, picture, snippet, prefix: str) -> str:
        key = _key(picture.data, prefix)
        path = self.folder / key[:2] / f"{key}.svg" if self.folder is not None else None
        if path is not None and path.is_file():
            self.drawings.append(None)
            return path.read_text(encoding="utf-8")
        started = time.perf_counter()
        try:
            svg = draw(picture.data, prefix, self.layout)
            self.drawings.append(time.perf_counter() - started)
            if path is not None:
                write_atomic(path, svg)
        except Exception as error:  # noqa: BLE001 - Graphviz (or Node) or matplotlib failed on this data: the snippet's error
            raise SnippetError(
                snippet.loc(picture.line),
                f"its {picture.kind} picture could not be drawn: {type(error).__name__}: {error}",
            ) from None
        return svg


def draw(data: PictureData, prefix: str = "p", layout: vizjs.Layout | None = None) -> str:
    """The finished, inline-ready SVG for one picture's data (graphs laid out in ``layout``'s Node)."""
    if layout is None:
        with vizjs.Layout() as own:  # started only if a graph needs it
            return draw(data, prefix, own)
    caption, description = describe(data)
    return _finish(_kind(data).svg(data, layout), prefix, caption, description)


def summary(drawings: list[float | None]) -> str:
    """The build log's line on what drawing pictures cost (``make bench`` reads it too)."""
    drawn = [seconds for seconds in drawings if seconds is not None]
    return f"pictures: {len(drawn)} drawn in {sum(drawn):.2f} s, {len(drawings) - len(drawn)} from cache"


def picture_prefix(rel: str, number: int) -> str:
    return "pic-" + re.sub(r"[^A-Za-z0-9]+", "-", rel.removesuffix(".py")).strip("-") + f"-{number}"


@functools.cache  # once per process: reading installed metadata costs milliseconds a call
def _versions() -> str:
    return f"{vizjs.version()},{pinned(('matplotlib',))}"


def _key(data: PictureData, prefix: str) -> str:
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(vizjs.SCRIPT.read_bytes())
    digest.update(_versions().encode())
    digest.update(prefix.encode())
    digest.update(json.dumps(data, sort_keys=True).encode())
    return digest.hexdigest()


def describe(data: PictureData) -> tuple[str, str]:
    """(caption, longer description) in words, for the ``<figcaption>``, ``<title>`` and ``<desc>``."""
    return _kind(data).describe(data)


def _describe_graph(data: GraphData) -> tuple[str, str]:
    nodes = {n["id"]: n for n in data["nodes"]}
    leaves = [n for n in data["nodes"] if n["type"] == "tensor" and n["leaf"]]
    parts = [f"{n['name']} = {n['value']}, {n['name']}.grad = {n.get('grad') or 'none'}" for n in leaves]
    head = data.get("title") or f"The autograd graph of {data['root']}, as PyTorch recorded it in this run"
    caption = f"{head}. Leaves: {'; '.join(parts) or 'none'}."
    steps = []
    for edge in data["edges"]:
        a, b = nodes[edge["from"]], nodes[edge["to"]]
        if edge["kind"] == "grad_fn" and a["type"] == "tensor":  # a tensor points at the node that made it
            steps.append(f"{a['name']} (value {a['value']}) is the output of {b['name']}")
        elif edge["grad"] is not None:
            steps.append(f"{edge['grad']} flows from {a['name']} to {b['name']}")
    functions = [n["name"] for n in data["nodes"] if n["type"] == "function"]
    description = f"Backward nodes: {', '.join(functions)}. " + (
        "; ".join(steps) + "." if steps else "No backward pass ran through it."
    )
    return caption, description


def _describe_curves(data: CurvesData) -> tuple[str, str]:
    parts = []
    for series in data["series"]:
        ys = [y for y in series["y"] if y is not None]
        if not ys:
            parts.append(f"{series['label']}: no finite values")
            continue
        part = f"{series['label']}: from {_num(ys[0])} to {_num(ys[-1])} over {len(series['y'])} {data['xlabel']}s"
        lowest = min(ys)
        if lowest < ys[-1] and lowest < ys[0]:  # it dipped, then rose again: say where
            at = data["x"][series["y"].index(lowest)]
            part += f", lowest {_num(lowest)} at {data['xlabel']} {_num(at)}"
        parts.append(part)
    ylabel = data["ylabel"]
    head = data.get("title") or f"{ylabel[:1].upper()}{ylabel[1:]} by {data['xlabel']}, from this run"
    caption = f"{head}. " + "; ".join(parts) + "."
    scale = " on a log scale" if data.get("log") else ""
    description = f"Line chart of {data['ylabel']}{scale} against {data['xlabel']}. " + "; ".join(parts) + "."
    return caption, description


def _graph_object(data: GraphData) -> dict:
    """The picture as a viz.js graph object: what Graphviz lays out (see :mod:`snippet_runner.pictures.vizjs`)."""
    nodes = []
    for node in data["nodes"]:
        if node["type"] == "function":
            label = node["name"]
            for item in node.get("saved", []):
                state = "freed" if item.get("freed") else "kept"
                label += f"\nsaved {item['name']} = {item['value']} ({state})"
            attrs = {"label": label, "shape": "box", "style": "rounded"}
        elif node["leaf"]:
            label = f"{node['name']} = {node['value']}\nleaf · .grad = {node.get('grad') or 'None'}"
            attrs = {"label": label, "shape": "ellipse", "style": "filled,bold", "fillcolor": LEAF}
        else:
            if node.get("continues"):
                kept = "graph continues below"
            elif node.get("grad_kept") is False:
                kept = "not a leaf · .grad not kept"
            else:
                kept = f"not a leaf · retain_grad() · .grad = {node.get('grad') or 'None'}"
            attrs = {"label": f"{node['name']} = {node['value']}\n{kept}", "shape": "ellipse", "style": "dashed"}
        attrs["id"] = node["id"]  # the player (assets/backward-steps.js) lights it up by this id
        nodes.append({"name": node["id"], "attributes": _labelled(attrs)})
    edges = []
    for index, edge in enumerate(data["edges"]):
        attrs = {}
        if edge["kind"] == "grad_fn":
            attrs = {"style": "dotted", "arrowhead": "none", "label": " grad_fn"}
        elif edge["grad"] is not None:
            attrs = {"label": f" {edge['grad']}"}
        if edge["kind"] == "accumulate":
            attrs["style"] = "bold"
        attrs["id"] = f"e{index}"  # a step names the edges it lights up by their index in the data
        edges.append({"tail": edge["from"], "head": edge["to"], "attributes": _labelled(attrs)})
    return {
        "directed": True,
        "graphAttributes": {"rankdir": "TB", "bgcolor": "transparent", "nodesep": 0.25, "ranksep": 0.3, "pad": 0.05},
        "nodeAttributes": {"fontname": FONT, "fontsize": 11, "color": FG, "fontcolor": FG, "penwidth": 1.2},
        "edgeAttributes": {"fontname": FONT, "fontsize": 10, "color": FG, "fontcolor": FG, "arrowsize": 0.7},
        "nodes": nodes,
        "edges": edges,
    }


def _labelled(attrs: dict) -> dict:
    """Graphviz reads backslashes in a label as escapes (``\\N``): a label shows its text as written."""
    if "label" in attrs:
        lines = attrs["label"].split("\n")
        attrs["label"] = "\\n".join(line.replace("\\", "\\\\") for line in lines)
    return attrs


def _curves_svg(data: CurvesData) -> str:
    import matplotlib
    from matplotlib.figure import Figure

    style: dict[Any, Any] = {  # matplotlib types its keys as a Literal of every rc name
        "svg.fonttype": "none",
        "svg.hashsalt": "snippet-runner",
        "font.family": FONT,
        "font.size": 10,
        **dict.fromkeys(("text.color", "axes.edgecolor", "axes.labelcolor", "xtick.color", "ytick.color"), FG),
        **dict.fromkeys(("axes.facecolor", "figure.facecolor", "savefig.facecolor", "savefig.edgecolor"), "none"),
        "legend.frameon": False,
        "path.simplify": False,
    }
    markers, dashes = ("o", "s", "^", "D"), ("-", "--", ":", "-.")
    with matplotlib.rc_context(style):
        # small enough that its text stays legible when scaled down to a phone's width
        figure = Figure(figsize=(5.2, 3.1), layout="constrained")
        axes = figure.subplots()
        xs = data["x"]
        for index, series in enumerate(data["series"]):
            ys = [float("nan") if y is None else y for y in series["y"]]
            many = len(ys) > 30
            axes.plot(
                xs[: len(ys)],
                ys,
                label=series["label"],
                color=SERIES[index % len(SERIES)],
                linestyle=dashes[index % len(dashes)],
                linewidth=2.2 if index == 0 else 1.6,
                marker=None if many else markers[index % len(markers)],
                markersize=7 - 2 * index if index < 3 else 4,
                markerfacecolor="none" if index % 2 else SERIES[index % len(SERIES)],
            )
        if data.get("log"):
            axes.set_yscale("log")
        axes.set_xlabel(data["xlabel"])
        axes.set_ylabel(data["ylabel"])
        if title := data.get("title"):
            axes.set_title(title)
        if all(float(x).is_integer() for x in xs) and len(xs) <= 20:
            axes.set_xticks(xs)
        axes.grid(True, color=FG, alpha=0.15)
        for side in ("top", "right"):
            axes.spines[side].set_visible(False)
        if len(data["series"]) > 1:  # above the axes, where it can never hide a curve
            figure.legend(loc="outside upper center", ncols=len(data["series"]))
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    return buffer.getvalue()


_HEAD = re.compile(r"^.*?(?=<svg\b)", re.S)
_DROPPED = re.compile(r"<!--.*?-->|<title>.*?</title>\s*|<metadata>.*?</metadata>\s*", re.S)  # ours come later
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|xlink:href="#|href="#)([^)"]+)')


def _finish(svg: str, prefix: str, caption: str, description: str) -> str:
    svg = _HEAD.sub("", svg, count=1)
    svg = _DROPPED.sub("", svg)
    svg = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)
    for placeholder, value in THEME.items():  # the page's colours: currentColor and CSS variables
        if value.startswith("var("):  # which SVG presentation attributes do not take; a style property does
            for attr in ("fill", "stroke"):
                svg = svg.replace(f'{attr}="{placeholder}"', f'style="{attr}: {value}"')
        svg = svg.replace(placeholder, value)
    svg = re.sub(r"\n\s*\n", "\n", svg).strip()
    accessible = f'<svg role="img" aria-labelledby="{prefix}-title {prefix}-desc" class="snippet-picture-svg"'
    svg = svg.replace("<svg", accessible, 1)
    words = f'<title id="{prefix}-title">{escape(caption)}</title><desc id="{prefix}-desc">{escape(description)}</desc>'
    return svg.replace(">", ">" + words, 1).replace("\n\n", "\n")  # first in the <svg> element


@dataclass(frozen=True)
class Kind(Generic[D]):
    """How the build shows one kind of picture, each function typed by that kind's data (mypy checks)."""

    svg: Callable[[D, vizjs.Layout], str]  # Graphviz's or matplotlib's SVG, before _finish
    describe: Callable[[D], tuple[str, str]]  # (caption, description)
    after: Callable[[D, str], str] = lambda data, prefix: ""  # HTML after its <figure>: a graph's steps


# Each kind of picture by its name: data.SCHEMAS and record.RECORDERS hold the same names.
DRAWERS: dict[str, Kind[Any]] = {
    "graph": Kind[GraphData](lambda data, layout: layout.render(_graph_object(data)), _describe_graph, steps.html),
    "curves": Kind[CurvesData](lambda data, _: _curves_svg(data), _describe_curves),
}


def _kind(data: PictureData) -> Kind[Any]:
    """Its kind's drawer; an unknown kind is an error, never drawn as another."""
    if data["kind"] not in DRAWERS:
        raise ValueError(f"no picture of kind {str(data['kind'])[:40]!r} can be drawn")
    return DRAWERS[data["kind"]]
