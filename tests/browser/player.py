"""What the step-through player under a graph picture must show, read from the approved data
(``<snippet>.pictures.json``), never from the chapter's text; and the list it reads, as the built
page holds it. The player (docs/assets/backward-steps.js) reads nothing but that list: each step's
sentence is its item's text, and what it lights up is named in the item's ``data-*`` attributes.
So the browser tests check the player against the approved data on the real site, and a build test
(tests/builds/test_build.py) checks that a changed input, once accepted, changes the list."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def figure_id(rel: str) -> str:
    return "pic-" + re.sub(r"[^A-Za-z0-9]+", "-", rel).strip("-") + "-1"


def approved(rel: str, snippets: Path = ROOT / "snippets") -> dict:
    (data,) = [d for d in json.loads((snippets / f"{rel}.pictures.json").read_text(encoding="utf-8"))]
    return data


def expected(data: dict) -> list[dict]:
    """What each of the player's steps must light up (ids without the picture's prefix) and the
    numbers its sentence must hold, read from the approved data."""
    nodes = {n["id"]: n for n in data["nodes"]}
    edges = data["edges"]
    (seed,) = [i for i, e in enumerate(edges) if e["kind"] == "seed"]
    out = [{"node": [edges[seed]["from"]], "in": [], "out": [f"e{seed}"], "words": [edges[seed]["grad"]]}]
    for step in data["steps"]:
        sent = [item for item in step["sent"] if item["grad"] is not None]
        numbers = [g for g in step["received"] if g is not None] + [a["grad"] for a in step["in"]]
        numbers += [item["grad"] for item in sent] + [item["factor"] for item in sent if "factor" in item]
        numbers += [step["grad_after"]] if step.get("grad_after") else []
        out.append(
            {
                "node": [step["node"]],
                "in": [f"e{a['edge']}" for a in step["in"]],
                "out": [f"e{item['edge']}" for item in sent],
                "words": [nodes[step["node"]]["name"], *numbers],
            }
        )
    leaves = [n for n in data["nodes"] if n["type"] == "tensor" and n.get("grad") is not None]
    into = [f"e{i}" for i, e in enumerate(edges) if e["kind"] == "accumulate"]
    out.append(
        {
            "node": [n["id"] for n in leaves],
            "in": into,
            "out": [],
            "words": [f"{n['name']}.grad = {n['grad']}" for n in leaves],
        }
    )
    return out


def listed_steps(page: str, figure: str) -> list[dict]:
    """The steps the built page lists under the picture ``figure`` (its id), as the player would
    show each one: what it lights up (ids without the picture's prefix) and its sentence."""
    box = re.search(rf'<div class="snippet-steps" data-picture="{figure}">.*?</ol></div>', page, re.S)
    assert box, f"no list of steps under #{figure}"
    items = re.findall(r'<li data-node="([^"]*)" data-in="([^"]*)" data-out="([^"]*)">(.*?)</li>', box[0], re.S)
    strip = lambda ids: [i.removeprefix(f"{figure}-") for i in ids.split()]  # noqa: E731
    return [{"node": strip(n), "in": strip(i), "out": strip(o), "text": unescape(t)} for n, i, o, t in items]
