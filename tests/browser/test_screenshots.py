"""Screenshots of a few pages, light and dark, on a desktop and a phone, saved OUTSIDE the
repository ($SCREENSHOT_DIR, default /tmp/autograd-site-screenshots) for a person to look at.
What a script can judge is asserted: the colour scheme took effect, and on a phone nothing
makes the page scroll sideways (wide code and outputs scroll inside their own box)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .pages import OPEN_SHADOW_ROOTS, wait_until_rendered

SCREENSHOT_DIR = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/autograd-site-screenshots"))
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SCHEMES = {"light": "default", "dark": "slate"}  # prefers-color-scheme -> Material's scheme
PAGES = {
    "home": "index.html",
    "chain-rule": "chain-rule.html",  # math, code, outputs
    "common-mistakes": "common-mistakes.html#backward-twice",  # Wrong/Right tabs, a traceback
    "exercise-2": "exercises/exercise_2_chain_rule.html",  # a notebook
    "training-loop-graph": "training-loop.html#pic-training-loop-one-step-graph-1",  # a graph drawn from a run
}


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", PAGES)
def test_screenshot(browser, http_root, name, scheme, viewport):
    phone = viewport == "phone"
    context = browser.new_context(
        viewport=VIEWPORTS[viewport],
        color_scheme=scheme,
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=2 if phone else 1,
    )
    context.add_init_script(OPEN_SHADOW_ROOTS)
    try:
        page = context.new_page()
        page.goto(http_root + PAGES[name], wait_until="load")
        wait_until_rendered(page)
        page.wait_for_timeout(300)  # Material's palette and scroll-to-anchor settle after load
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT_DIR / f"{name}-{scheme}-{viewport}.png"))
        assert page.locator("body").get_attribute("data-md-color-scheme") == SCHEMES[scheme]
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px on a {viewport}"
    finally:
        context.close()
