"""The player under each graph picture (snippet_runner/plugins/runner/assets/backward-steps.js), in Chromium: stepping
through the backward pass lights up, step by step, the node the run's engine ran and the edges
its gradient came in and went out on, in the recorded order, and says it in words in a polite
live region; the fan-out's step shows both parts and their sum; the keyboard alone does it all; and
a changed input changes the steps' numbers once accepted. That every player passes axe at its
busiest step, keeps WCAG AA contrast in both palettes and fits a phone is checked by the page audit
(test_accessibility.py, which takes every player there first: audit.py, player.py).

Every expected value comes from the approved data (``<snippet>.pictures.json``), never from the
chapter's text: the tests check the mechanism, whatever the numbers are.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from .audit import new_context
from .pages import open_page, wait_until_rendered
from .pdf_text import read, squash
from .player import LIT, approved, expected, figure_id

ROOT = Path(__file__).resolve().parents[2]
CHAIN_RULE = ("chain-rule.html", "chain_rule/autograd_check")
FAN_OUT = ("computational-graph.html", "computational_graph/used_twice")


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


# -- every graph page ------------------------------------------------------------------------------


def graph_pages(site: Path) -> dict[str, list[str]]:
    pages: dict[str, list[str]] = {}
    for html in sorted(site.glob("*.html")):
        if html.name == "print_page.html":
            continue
        found = re.findall(r'<figure class="snippet-picture snippet-picture-graph" id="([^"]+)"', html.read_text())
        if found:
            pages[html.name] = found
    return pages


def test_every_graph_the_snippets_recorded_has_a_picture_on_a_page(built_site):
    """Each of those pictures' players is audited by the page audit (test_accessibility.py, with
    audit.py's ``players``), at its busiest step, in both palettes and at both widths: axe's whole
    rule set, and player.py's player_problems (one player, two steps or more, lit at its busiest
    step, the lit parts' contrast, the fit in its column, the buttons' target size)."""
    pages = graph_pages(built_site)
    recorded = sum(
        1
        for path in (ROOT / "snippets").rglob("*.pictures.json")
        for data in json.loads(path.read_text(encoding="utf-8"))
        if data.get("steps")
    )
    assert recorded >= 12 and sum(len(ids) for ids in pages.values()) == recorded


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
