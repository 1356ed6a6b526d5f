"""The chapter's pictures on the built site: every page that should show a graph or a curve does,
drawn from its run, with a caption and a text alternative carrying the key values; the exercise
notebook carries its curve; hand-drawn sketches of run graphs are gone."""

import json
import re
from collections import Counter

import pytest
from real_chapter import DOCS, SNIPPETS

FIGURE = re.compile(r'<figure class="snippet-picture snippet-picture-(\w+)" id="([^"]+)">(.*?)</figure>', re.S)

# page -> (kind, words its picture's caption or text alternative must contain)
EXPECTED = {
    "chain-rule": ("graph", ["x = 2, x.grad = 60", "20 flows from PowBackward0 to AddBackward0", "u (value 10)"]),
    "computational-graph": ("graph", ["x.grad = 60", "y (value 6)", "z (value 10)"]),
    "multiple-variables": ("graph", ["x.grad = 42", "w.grad = 28", "b.grad = 14"]),
    "leaf-tensors": ("graph", ["x.grad = 36"]),
    "retain-graph": ("graph", ["x.grad = 4", "PowBackward0"]),
    "non-scalar-outputs": ("graph", ["x.grad = [2, 4, 6]", "[1, 1, 1] flows from y to PowBackward0"]),
    "training-loop": ("graph", ["model.weight", "model.bias", "MseLossBackward0"]),
    "common-mistakes": ("curves", ["without zero_grad()", "with zero_grad()"]),
    "linear-regression": ("curves", ["manual update", "optim.SGD"]),
    "best-practices": ("curves", ["lr = 0.05 (converges)", "lr = 0.3 (diverges)", "log scale"]),
}


@pytest.mark.parametrize("page", EXPECTED)
def test_page_shows_its_picture_with_words_for_it(built_site, page):
    kind, words = EXPECTED[page]
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


def test_exercise_6_notebook_carries_its_loss_curve(built_site):
    page = (built_site / "exercises/exercise_6_mini_training_loop.html").read_text()
    (approved,) = json.loads((SNIPPETS / "exercises/exercise_6_mini_training_loop.pictures.json").read_text())
    first = f"{approved['series'][0]['y'][0]:.4g}"
    assert page.count('class="snippet-picture-svg"') == 1 and f"training loss: from {first}" in page
    assert "No description has been provided" not in page
    notebook = json.loads((built_site / "exercises/exercise_6_mini_training_loop.ipynb").read_text())
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
