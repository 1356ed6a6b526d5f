"""The chapter's pictures on the built site: every page that should show a graph or a curve does,
drawn from its run, with a caption and a text alternative carrying the key values; the exercise
notebook carries its curve; hand-drawn sketches of run graphs are gone."""

import json
import re
from collections import Counter

import pytest
from real_chapter import DOCS, SNIPPETS

FIGURE = re.compile(r'<figure class="snippet-picture snippet-picture-(\w+)" id="([^"]+)">(.*?)</figure>', re.S)

# page -> (kind, words its picture's caption or text alternative must contain). A graph's words come
# from its snippet's approved data (its `.pictures.json`), never from the chapter's numbers: a change
# to an example's input, once approved with `make accept`, changes what is expected here with it.
GRAPH_SNIPPETS = {
    "chain-rule": "chain_rule/autograd_check",
    "computational-graph": "computational_graph/three_step_graph",
    "multiple-variables": "multiple_variables/weight_and_bias",
    "leaf-tensors": "leaf_tensors/retain_grad",
    "retain-graph": "retain_graph/backward_twice_error",
    "non-scalar-outputs": "non_scalar_outputs/gradient_of_vector",
    "training-loop": "training_loop/one_step_graph",
}
CURVES = {
    "common-mistakes": ["without zero_grad()", "with zero_grad()"],
    "linear-regression": ["manual update", "optim.SGD"],
    "best-practices": ["lr = 0.05 (converges)", "lr = 0.3 (diverges)", "log scale"],
}


def approved_graph_words(snippet: str) -> list[str]:
    """What a reader who cannot see the drawing must still be told, from the approved data: each
    leaf's value and gradient, each named non-leaf's value, and each number that flowed on an edge."""
    words = []
    for picture in json.loads((SNIPPETS / f"{snippet}.pictures.json").read_text()):
        nodes = {node["id"]: node for node in picture["nodes"]}
        for node in picture["nodes"]:
            if node["type"] == "tensor" and node["leaf"]:
                words.append(f"{node['name']} = {node['value']}, {node['name']}.grad = {node.get('grad') or 'none'}")
        for edge in picture["edges"]:
            start, end = nodes[edge["from"]], nodes[edge["to"]]
            if edge["kind"] == "grad_fn" and start["type"] == "tensor":
                words.append(f"{start['name']} (value {start['value']})")
            elif edge["grad"] is not None:
                words.append(f"{edge['grad']} flows from {start['name']} to {end['name']}")
    assert words, snippet
    return words


EXPECTED = {page: ("graph", snippet) for page, snippet in GRAPH_SNIPPETS.items()} | {
    page: ("curves", words) for page, words in CURVES.items()
}


@pytest.mark.parametrize("page", EXPECTED)
def test_page_shows_its_picture_with_words_for_it(built_site, page):
    kind, words = EXPECTED[page]
    if kind == "graph":
        words = approved_graph_words(words)
    figures = FIGURE.findall((built_site / f"{page}.html").read_text())
    mine = [body for found, _, body in figures if found == kind]
    assert mine, f"no {kind} picture on {page}"
    for body in figures:
        body = body[2]
        assert re.search(r'<svg role="img" aria-labelledby="[^"]+-title [^"]+-desc"', body)
        assert "<title id=" in body and "<desc id=" in body and "<figcaption>" in body and "<text" in body
    said = " ".join(mine)
    for word in words:
        assert word in said, f"{page}: {word!r} not in its picture's caption or description"


def test_every_picture_snippet_has_readable_approved_data():
    files = sorted(SNIPPETS.rglob("*.pictures.json"))
    assert len(files) >= 13
    for path in files:
        assert path.with_name(path.name.replace(".pictures.json", ".py")).is_file(), f"{path.name} has no snippet"
        data = json.loads(path.read_text())
        assert data and all(p["kind"] in ("graph", "curves") for p in data)


def test_exercise_12_notebook_carries_its_loss_curve(built_site):
    page = (built_site / "exercises/exercise_12_mini_training_loop.html").read_text()
    (approved,) = json.loads((SNIPPETS / "exercises/exercise_12_mini_training_loop.pictures.json").read_text())
    first = f"{approved['series'][0]['y'][0]:.4g}"
    assert page.count('class="snippet-picture-svg"') == 1 and f"training loss: from {first}" in page
    assert "No description has been provided" not in page
    notebook = json.loads((built_site / "exercises/exercise_12_mini_training_loop.ipynb").read_text())
    svgs = [o for c in notebook["cells"] for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {})]
    assert (
        len(svgs) == 1
        and "solution" in next(c for c in notebook["cells"] if svgs[0] in c.get("outputs", []))["metadata"]["tags"]
    )


def test_pictures_never_clash_on_the_print_page(built_site):
    ids = re.findall(r'\bid="(pic-[^"]+)"', (built_site / "print_page.html").read_text())
    assert ids, "no pictures on the print page"
    assert [i for i, n in Counter(ids).items() if n > 1] == []


def test_sketches_of_run_graphs_were_replaced_by_real_graphs():
    for page in ("computational-graph.md", "multiple-variables.md"):
        assert "```mermaid" not in (DOCS / page).read_text()
