"""The player under each graph picture (docs/assets/backward-steps.js), in Chromium: stepping
through the backward pass lights up, step by step, the node the run's engine ran and the edges
its gradient came in and went out on, in the recorded order, and says it in words in a polite
live region; the fan-out's step shows both parts and their sum; the keyboard alone does it all; the
lit colours keep WCAG AA contrast in both palettes and the player fits a phone; and a changed input
changes the steps' numbers once accepted.

Every expected value comes from the approved data (``<snippet>.pictures.json``), never from the
chapter's text: the tests check the mechanism, whatever the numbers are.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from .audit import MATERIAL_SCHEME, axe_source, new_context, to_palette, to_width
from .pages import open_page, wait_until_rendered
from .pdf_text import read, squash
from .player import approved, expected, figure_id

ROOT = Path(__file__).resolve().parents[2]
CHAIN_RULE = ("chain-rule.html", "chain_rule/autograd_check")
FAN_OUT = ("computational-graph.html", "computational_graph/fan_out")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


LIT = """(figure) => {
  const ids = cls => Array.from(figure.querySelectorAll("svg ." + cls)).map(el => el.id.slice(figure.id.length + 1))
  const player = figure.querySelector(".snippet-player")
  const text = player.querySelector(".snippet-step-text")
  return {
    node: ids("snippet-step-node"), in: ids("snippet-step-in"), out: ids("snippet-step-out"),
    text: text.textContent, live: text.getAttribute("aria-live"), step: Number(player.dataset.step),
  }
}"""


def state(figure) -> dict:
    return figure.evaluate(LIT)


def check_step(seen: dict, want: dict, number: int, total: int) -> None:
    assert sorted(seen["node"]) == sorted(want["node"]), (number, seen)
    assert sorted(seen["in"]) == sorted(want["in"]), (number, seen)
    assert sorted(seen["out"]) == sorted(want["out"]), (number, seen)
    assert seen["text"].startswith(f"Step {number} of {total}: "), seen["text"]
    for word in want["words"]:
        assert word in seen["text"], (word, seen["text"])
    assert seen["live"] == "polite"


def unfold(figure) -> None:
    """Open the collapsed "Predict, then run" answer the picture sits in, if any, with a click."""
    summary = figure.locator("xpath=ancestor::details[not(@open)]/summary")
    if summary.count():
        summary.first.click()


def step_through_with_buttons(figure, data: dict) -> list[dict]:
    """Press Next to the end, checking every step; then Back, End and Start. Returns the states."""
    want = expected(data)
    seen = []
    assert state(figure)["node"] == [] and state(figure)["step"] == 0
    for number in range(1, len(want) + 1):
        figure.get_by_role("button", name="Next").click()
        seen.append(state(figure))
        check_step(seen[-1], want[number - 1], number, len(want))
    # at the end, Next says it can go no further (and the last step stays)
    assert figure.get_by_role("button", name="Next").get_attribute("aria-disabled") == "true"
    assert state(figure)["step"] == len(want)
    figure.get_by_role("button", name="Back").click()
    check_step(state(figure), want[-2], len(want) - 1, len(want))
    figure.get_by_role("button", name="Start").click()
    assert state(figure)["node"] == [] and state(figure)["step"] == 0
    figure.get_by_role("button", name="End").click()
    check_step(state(figure), want[-1], len(want), len(want))
    return seen


def test_chain_rule_steps_light_the_recorded_order_with_the_approved_numbers(context):
    page_path, rel = CHAIN_RULE
    data = approved(rel)
    page = open_page(context, page_path)
    figure = page.locator(f"#{figure_id(rel)}")
    seen = step_through_with_buttons(figure, data)
    ran = [s["node"][0] for s in seen[1:-1]]
    assert ran == [step["node"] for step in data["steps"]]  # the engine's order, as recorded
    assert context.recorder.foreign() == []


def test_fan_out_step_shows_both_parts_and_their_sum(context):
    page_path, rel = FAN_OUT
    data = approved(rel)
    (adding,) = [i for i, step in enumerate(data["steps"]) if len(step["in"]) > 1]
    page = open_page(context, page_path)
    figure = page.locator(f"#{figure_id(rel)}")
    unfold(figure)
    seen = step_through_with_buttons(figure, data)
    step = data["steps"][adding]
    shown = seen[1 + adding]  # after the seed's step
    parts = [a["grad"] for a in step["in"]]
    assert len(shown["in"]) == len(parts) >= 2
    assert f"{' + '.join(parts)} = {step['received'][0]}" in shown["text"]


def press_until_focused(page, selector: str, limit: int = 400) -> None:
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("example", [CHAIN_RULE, FAN_OUT], ids=["chain-rule", "fan-out"])
def test_the_keyboard_alone_steps_through(browser, built_site, example):
    page_path, rel = example
    data = approved(rel)
    want = expected(data)
    context = new_context(browser, "light", "desktop", built_site.as_uri() + "/")
    try:
        page = context.new_page()
        page.goto(f"{built_site.as_uri()}/{page_path}")
        wait_until_rendered(page)
        figure_sel = f"#{figure_id(rel)}"
        figure = page.locator(figure_sel)
        if figure.locator("xpath=ancestor::details[not(@open)]").count():
            details = page.locator("details", has=page.locator(figure_sel))
            press_until_focused(page, f"details:has({figure_sel}) > summary")
            page.keyboard.press("Enter")
            assert details.evaluate("d => d.open")
        press_until_focused(page, f"{figure_sel} .snippet-player button")
        assert page.evaluate("() => document.activeElement.textContent") == "Start"
        for number in range(1, len(want) + 1):
            page.keyboard.press("ArrowRight")
            check_step(state(figure), want[number - 1], number, len(want))
        page.keyboard.press("Home")
        assert state(figure)["step"] == 0
        page.keyboard.press("Tab")  # Back
        page.keyboard.press("Tab")  # Next
        assert page.evaluate("() => document.activeElement.textContent").startswith("Next")
        page.keyboard.press("Enter")
        check_step(state(figure), want[0], 1, len(want))
        page.keyboard.press("Space")
        check_step(state(figure), want[1], 2, len(want))
        page.keyboard.press("End")
        check_step(state(figure), want[-1], len(want), len(want))
        page.keyboard.press("ArrowLeft")
        check_step(state(figure), want[-2], len(want) - 1, len(want))
    finally:
        context.close()


# -- every graph page, both palettes, desktop and phone --------------------------------------------

CONTRAST = """(figure) => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(Number)
  const out = []
  for (const el of figure.querySelectorAll(".snippet-step-node, .snippet-step-in, .snippet-step-out"))
    for (const part of el.querySelectorAll("path, ellipse, polygon, text")) {
      const style = getComputedStyle(part)
      const text = part.tagName === "text"
      out.push({ id: el.id, text, color: rgb(text ? style.fill : style.stroke) })
    }
  let bg = null
  for (let e = figure; e && !bg; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor
    if (c && !/rgba\\(0, 0, 0, 0\\)|transparent/.test(c)) bg = rgb(c)
  }
  return { parts: out, background: bg || rgb(getComputedStyle(document.body).backgroundColor) }
}"""


def contrast(a: list[float], b: list[float]) -> float:
    def lum(c):
        srgb = [v / 255 for v in c]
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in srgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def graph_pages(site: Path) -> dict[str, list[str]]:
    pages: dict[str, list[str]] = {}
    for html in sorted(site.glob("*.html")):
        if html.name == "print_page.html":
            continue
        found = re.findall(r'<figure class="snippet-picture snippet-picture-graph" id="([^"]+)"', html.read_text())
        if found:
            pages[html.name] = found
    return pages


# Both palettes and both widths, each once: the lit colors come from the palette, the layout from the
# width, and neither depends on the other (the whole-page audit covers every page in all four). Each
# page is loaded once, in the light palette on a desktop, each player set to its busiest step, checked,
# and then switched to the dark palette with the header's toggle and narrowed to a phone's width, as
# the audit does (audit.py), and checked again: the players keep their step.
PAIRS = [("light", "desktop"), ("dark", "phone")]

# Each player to the step lighting the most edges, with its Next button; returns, for each picture,
# how many steps are listed under it, the busiest one's number, and how many players it has.
TO_BUSIEST = """(ids) => ids.map(id => {
  const figure = document.getElementById(id)
  const counts = Array.from(figure.nextElementSibling.querySelectorAll("ol.snippet-steps-list > li"))
    .map(li => (li.dataset.in + " " + li.dataset.out).trim().split(/ +/).length)
  const busiest = counts.indexOf(Math.max(...counts)) + 1
  const next = Array.from(figure.querySelectorAll(".snippet-player button")).find(b => b.textContent.startsWith("Next"))
  for (let i = 0; next && i < busiest; i++) next.click()
  return {steps: counts.length, busiest, players: figure.querySelectorAll(".snippet-player").length}
})"""


def test_every_graph_page_has_a_player_that_passes_axe_and_keeps_its_contrast(browser, built_site):
    pages = graph_pages(built_site)
    # every graph the snippets' approved data holds steps for has a picture on some page
    recorded = sum(
        1
        for path in (ROOT / "snippets").rglob("*.pictures.json")
        for data in json.loads(path.read_text(encoding="utf-8"))
        if data.get("steps")
    )
    assert recorded >= 12 and sum(len(ids) for ids in pages.values()) == recorded
    axe = axe_source()
    context = new_context(browser, "light", "desktop", built_site.as_uri() + "/")
    try:
        for name, ids in pages.items():
            if context.pages:
                context.pages[0].close()  # the one before was left dark and narrow
            page = context.new_page()
            page.goto(f"{built_site.as_uri()}/{name}")
            wait_until_rendered(page)
            page.add_script_tag(content=axe)
            for figure_id_ in ids:
                unfold(page.locator(f"#{figure_id_}"))
            for figure_id_, set_up in zip(ids, page.evaluate(TO_BUSIEST, ids), strict=True):
                assert set_up["players"] == 1, (name, figure_id_)
                listed = page.locator(f"#{figure_id_} + .snippet-steps ol.snippet-steps-list > li").count()
                assert 2 <= listed == set_up["steps"], (name, figure_id_)
                found = state(page.locator(f"#{figure_id_}"))
                assert found["step"] == set_up["busiest"] and found["node"], (name, figure_id_, found)
            for scheme, width in PAIRS:
                if (scheme, width) != PAIRS[0]:
                    to_palette(page, scheme)()
                    to_width(page, width)()
                page.wait_for_function(f"document.body.dataset.mdColorScheme === '{MATERIAL_SCHEME[scheme]}'")
                for figure_id_ in ids:
                    check_player(page, name, figure_id_, scheme, width)
                # one run over every player of the page, in its busiest step
                result = page.evaluate(
                    "async ([ids, tags]) => (await axe.run({include: ids.map(id => ['#' + id])}, "
                    "{runOnly: {type: 'tag', values: tags}})).violations"
                    ".filter(v => ['serious', 'critical'].includes(v.impact))"
                    ".map(v => v.id + ': ' + v.help + ' ' + v.nodes.map(n => n.target.join(' ')).join(', '))",
                    [ids, AXE_TAGS],
                )
                assert result == [], (name, scheme, width, result)
    finally:
        context.close()


def check_player(page, name: str, figure_id_: str, scheme: str, width: str) -> None:
    """The lit parts keep WCAG AA contrast on their background, the player fits its column, and
    each of its buttons is a target of at least 24 px (WCAG 2.5.8)."""
    figure = page.locator(f"#{figure_id_}")
    assert state(figure)["node"], (name, figure_id_, scheme, width)  # still lit at its busiest step
    measured = figure.evaluate(CONTRAST)
    assert measured["parts"], (name, figure_id_)
    for part in measured["parts"]:
        least = 4.5 if part["text"] else 3.0
        ratio = contrast(part["color"], measured["background"])
        assert ratio >= least, (name, scheme, part, measured["background"], ratio)
    player = figure.locator(".snippet-player")
    fits = player.evaluate(
        "p => p.scrollWidth <= p.clientWidth + 1 && p.getBoundingClientRect().right <= innerWidth + 1"
    )
    assert fits, (name, figure_id_, width)
    sizes = player.evaluate("p => Array.from(p.querySelectorAll('button')).map(b => [b.offsetWidth, b.offsetHeight])")
    assert all(w >= 24 and h >= 24 for w, h in sizes), sizes


def test_without_javascript_the_picture_stays_as_drawn(browser, built_site):
    page_path, rel = CHAIN_RULE
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{built_site.as_uri()}/{page_path}")
        figure = page.locator(f"#{figure_id(rel)}")
        assert figure.locator("svg.snippet-picture-svg").is_visible()
        assert figure.locator(".snippet-player").count() == 0
        assert figure.locator("svg .snippet-step-node, svg .snippet-step-in, svg .snippet-step-out").count() == 0
        assert not page.locator(f"#{figure_id(rel)} + .snippet-steps").is_visible()  # the list is for paper
    finally:
        context.close()


# -- on paper -------------------------------------------------------------------------------------


def test_the_pdf_prints_each_graphs_steps_as_a_numbered_list_under_it(built_site, printed_page):
    """The print page keeps the picture and, under it, the steps (shown by print media, the player
    hidden, on the paper's width); the PDF's text holds every step's sentence, in order, the
    fan-out's sum among them."""
    html = (built_site / "print_page.html").read_text(encoding="utf-8")
    figures = re.findall(
        r'<figure class="snippet-picture snippet-picture-graph"[^>]*>.*?</figure><div class="snippet-steps".*?</ol>',
        html,
        re.S,
    )
    assert len(figures) == sum(len(ids) for ids in graph_pages(built_site).values())
    text = read(built_site / "pdf" / "autograd-part2.pdf").all_text()
    for figure in figures:
        items = [
            squash(unescape(re.sub(r"<[^>]+>", "", li))) for li in re.findall(r"<li\b[^>]*>(.*?)</li>", figure, re.S)
        ]
        assert len(items) >= 3, figure[:200]
        at = 0
        for item in items:
            found = text.find(item, at)
            assert found >= 0, item
            at = found + len(item)
    data = approved(FAN_OUT[1])
    (adding,) = [step for step in data["steps"] if len(step["in"]) > 1]
    assert f"{' + '.join(a['grad'] for a in adding['in'])} = {adding['received'][0]}" in text
    shown = printed_page.evaluate(
        """() => Array.from(document.querySelectorAll("figure.snippet-picture-graph")).map(f => [
            getComputedStyle(f.nextElementSibling).display !== "none"
              && f.nextElementSibling.querySelector("ol.snippet-steps-list").offsetHeight > 0,
            getComputedStyle(f.nextElementSibling.querySelector("ol.snippet-steps-list")).listStyleType,
            f.querySelector(".snippet-player") ? getComputedStyle(f.querySelector(".snippet-player")).display : "none",
            !!f.querySelector("svg.snippet-picture-svg")])"""
    )
    assert len(shown) == len(figures) and all(s == [True, "decimal", "none", True] for s in shown), shown
