"""The chapter is taught in order: the first page (in the navigation's order) whose listings use an
autograd call also says, in its own text, what that call does, and no page leans on a later one
to explain a call its listings already used."""

import re

import pytest
from real_chapter import DOCS, SNIPPETS

from .test_site import nav_pages

RUN_LINE = re.compile(r"^\s*\{\{ run ([^\s}]+)")
FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)

# Each call a reader must be told about before (or where) a listing first uses it: a pattern that
# finds it in a listing, and the words the text of that page must contain.
CALLS = {
    "requires_grad=True": (r"requires_grad=True", "requires_grad=True"),
    "backward()": (r"\.backward\(", "backward()"),
    ".grad": (r"\.grad\b", ".grad"),
    "grad_fn": (r"\.grad_fn\b", "grad_fn"),
    "next_functions": (r"\.next_functions\b", "next_functions"),
    "torch.autograd.grad": (r"torch\.autograd\.grad\(", "torch.autograd.grad"),
    "torch.no_grad()": (r"torch\.no_grad\(", "torch.no_grad()"),
    "detach()": (r"\.detach\(", "detach()"),
    "retain_grad()": (r"\.retain_grad\(", "retain_grad()"),
    "retain_graph=True": (r"retain_graph=True", "retain_graph=True"),
    "register_hook": (r"\.register_hook\(", "hook"),
    "nn.Linear": (r"nn\.Linear\(", "nn.Linear"),
    "nn.MSELoss": (r"nn\.MSELoss\(", "nn.MSELoss"),
    "model.zero_grad()": (r"model\.zero_grad\(", "model.zero_grad()"),
    "torch.optim.SGD": (r"optim\.SGD\(", "torch.optim.SGD"),
    "optimizer.step()": (r"optimizer\.step\(", "optimizer.step()"),
    "optimizer.zero_grad()": (r"optimizer\.zero_grad\(", "optimizer.zero_grad()"),
    ".item()": (r"\.item\(", ".item()"),
    "torch.manual_seed": (r"torch\.manual_seed\(", "torch.manual_seed"),
    "named_parameters()": (r"\.named_parameters\(", "named_parameters()"),
    "torch.dot": (r"torch\.dot\(", "torch.dot"),
    "torch.outer": (r"torch\.outer\(", "torch.outer"),
    "nn.Sequential": (r"nn\.Sequential\(", "nn.Sequential"),
    "torch.autograd.Function": (r"autograd\.Function\b", "torch.autograd.Function"),
    "gradcheck": (r"gradcheck\(", "gradcheck"),
    "argmax": (r"\.argmax\(", "argmax"),
    "torch.where": (r"torch\.where\(", "torch.where"),
    "set_detect_anomaly": (r"set_detect_anomaly\(", "set_detect_anomaly"),
    "requires_grad_()": (r"\.requires_grad_\(", "requires_grad_()"),
    "zero_()": (r"\.zero_\(", "zero_()"),
}


def pages_in_order() -> list[str]:
    return [page for page in nav_pages() if page.endswith(".md") and not page.startswith("exercises/")]


def listings(page: str) -> str:
    """The code of every snippet the page runs."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return "\n".join((SNIPPETS / m[1]).read_text(encoding="utf-8") for m in map(RUN_LINE.match, text.splitlines()) if m)


def prose(page: str) -> str:
    """The page's own words: its text without fenced code blocks and without its run lines."""
    text = FENCE.sub("", (DOCS / page).read_text(encoding="utf-8"))
    return "\n".join(line for line in text.splitlines() if not RUN_LINE.match(line))


def first_use(pattern: str) -> str | None:
    return next((page for page in pages_in_order() if re.search(pattern, listings(page))), None)


@pytest.mark.parametrize("call", CALLS)
def test_the_first_page_whose_listings_use_a_call_says_what_it_does(call):
    pattern, words = CALLS[call]
    page = first_use(pattern)
    assert page is not None, f"no listing uses {call}: remove it from CALLS"
    assert words in prose(page), (
        f"{page} is the first page whose listings use {call}, and its text does not introduce it"
    )


def test_your_first_gradient_comes_before_the_chain_rule():
    pages = pages_in_order()
    assert pages.index("first-gradient.md") < pages.index("chain-rule.md")


def test_leaf_and_non_leaf_tensors_comes_right_after_your_first_gradient():
    """The word "leaf" explains a None gradient from the first pages on, so the page that teaches it
    follows the first gradient directly."""
    pages = pages_in_order()
    assert pages.index("leaf-tensors.md") == pages.index("first-gradient.md") + 1


# What the training loop with nn and torch.optim uses; the loop by hand comes before any of it.
LIBRARY_LOOP = r"\bnn\.\w+\(|torch\.optim\.|\boptim\.\w+\("


def test_the_loop_by_hand_comes_before_the_loop_with_nn_and_optim():
    pages = pages_in_order()
    by_hand = pages.index("linear-regression.md")
    earlier = [page for page in pages[:by_hand] if re.search(LIBRARY_LOOP, listings(page))]
    assert not earlier, f"{earlier} use nn or torch.optim before Linear regression by hand"


# Calls with pages of their own later in the chapter: the first pages, up to the loop by hand,
# neither run them nor teach them in passing.
LATER_TOOLS = {
    "torch.autograd.grad": r"torch\.autograd\.grad\(",
    "a node hook": r"grad_fn\.register_(pre)?hook\(|\.register_hook\(",
    "torch.no_grad()": r"\bno_grad\(",
    "torch.inference_mode()": r"\binference_mode\(",
    "torch.set_grad_enabled": r"\bset_grad_enabled\(",
    "detach()": r"\.detach\(",
}


@pytest.mark.parametrize("tool", LATER_TOOLS)
def test_the_first_pages_do_not_front_load_a_later_tool(tool):
    pages = pages_in_order()
    first = pages[: pages.index("linear-regression.md")]
    using = [page for page in first if re.search(LATER_TOOLS[tool], listings(page))]
    assert not using, f"{using} run {tool} before the page that teaches it"
