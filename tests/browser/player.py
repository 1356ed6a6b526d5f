"""What the step-through player under a graph picture must show, read from the approved data
(``<snippet>.pictures.json``), never from the chapter's text; and the list it reads, as the built
page holds it. The player (snippet_runner/plugins/runner/assets/backward-steps.js) reads nothing but that list: each step's
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


# -- in the page audit (audit.py): every player at its busiest step --------------------------------

# What a player shows now: the ids it lights (without the picture's prefix), its sentence, its step.
LIT = """(figure) => {
  const ids = cls => Array.from(figure.querySelectorAll("svg ." + cls)).map(el => el.id.slice(figure.id.length + 1))
  const player = figure.querySelector(".snippet-player")
  const text = player.querySelector(".snippet-step-text")
  return {
    node: ids("snippet-step-node"), in: ids("snippet-step-in"), out: ids("snippet-step-out"),
    text: text.textContent, live: text.getAttribute("aria-live"), step: Number(player.dataset.step),
  }
}"""

# Every graph picture's collapsed answer opened, and its player taken with its Next button to the
# step lighting the most edges (what the page audit then sees); for each picture: its id, how many
# steps are listed under it, the busiest one's number, and how many players it has.
TO_BUSIEST = """() => Array.from(document.querySelectorAll("figure.snippet-picture-graph")).map(figure => {
  for (let d = figure.closest("details:not([open])"); d; d = figure.closest("details:not([open])")) d.open = true
  const counts = Array.from(figure.nextElementSibling.querySelectorAll("ol.snippet-steps-list > li"))
    .map(li => (li.dataset.in + " " + li.dataset.out).trim().split(/ +/).length)
  const busiest = counts.indexOf(Math.max(...counts)) + 1
  const next = Array.from(figure.querySelectorAll(".snippet-player button")).find(b => b.textContent.startsWith("Next"))
  for (let i = 0; next && i < busiest; i++) next.click()
  return {id: figure.id, steps: counts.length, busiest, players: figure.querySelectorAll(".snippet-player").length}
})"""

# For each graph picture with a player: what it lights (LIT), the colour of every lit part and the
# background behind the picture, whether the player fits its column, and its buttons' sizes.
MEASURE = (
    """() => Array.from(document.querySelectorAll("figure.snippet-picture-graph")).filter(f => f.querySelector(".snippet-player")).map(figure => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number)
  const parts = []
  for (const el of figure.querySelectorAll(".snippet-step-node, .snippet-step-in, .snippet-step-out"))
    for (const part of el.querySelectorAll("path, ellipse, polygon, text")) {
      const style = getComputedStyle(part)
      const text = part.tagName === "text"
      parts.push({ id: el.id, text, color: rgb(text ? style.fill : style.stroke) })
    }
  let bg = null
  for (let e = figure; e && !bg; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor
    if (c && !/rgba\\(0, 0, 0, 0\\)|transparent/.test(c)) bg = rgb(c)
  }
  const p = figure.querySelector(".snippet-player")
  return {
    id: figure.id, lit: ("""
    + LIT
    + """)(figure), parts, background: bg || rgb(getComputedStyle(document.body).backgroundColor),
    fits: p.scrollWidth <= p.clientWidth + 1 && p.getBoundingClientRect().right <= innerWidth + 1,
    sizes: Array.from(p.querySelectorAll("button")).map(b => [b.offsetWidth, b.offsetHeight]),
  }
})"""
)


def contrast(a: list[float], b: list[float]) -> float:
    """WCAG's contrast ratio of two sRGB colours (0-255)."""

    def lum(c):
        srgb = [v / 255 for v in c]
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in srgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def player_problems(where: str, set_up: list[dict], measured: list[dict]) -> list[str]:
    """What is wrong with the players of a page (``set_up``: TO_BUSIEST's answer; ``measured``:
    MEASURE's, in one palette and width): each picture has one player, at least two steps listed,
    and stays lit at its busiest step; the lit parts keep WCAG AA contrast on their background (4.5
    for text, 3 for lines), the player fits its column, and each of its buttons is a target of at
    least 24 px (WCAG 2.5.8)."""
    problems = [f"{where} #{s['id']}: {s}" for s in set_up if s["players"] != 1 or s["steps"] < 2]
    if [m["id"] for m in measured] != [s["id"] for s in set_up]:
        return [*problems, f"{where}: measured {[m['id'] for m in measured]}, set up {[s['id'] for s in set_up]}"]
    for s, m in zip(set_up, measured, strict=True):
        if m["lit"]["step"] != s["busiest"] or not m["lit"]["node"]:
            problems.append(f"{where} #{s['id']}: not lit at its busiest step {s['busiest']}: {m['lit']}")
        if not m["parts"]:
            problems.append(f"{where} #{s['id']}: no lit part found")
        for part in m["parts"]:
            ratio = contrast(part["color"], m["background"])
            if ratio < (4.5 if part["text"] else 3.0):
                problems.append(f"{where} #{s['id']}: {part} on {m['background']}: contrast {ratio:.2f}")
        if not m["fits"]:
            problems.append(f"{where} #{s['id']}: the player is wider than its column")
        if not all(w >= 24 and h >= 24 for w, h in m["sizes"]):
            problems.append(f"{where} #{s['id']}: a button smaller than 24 px: {m['sizes']}")
    return problems
