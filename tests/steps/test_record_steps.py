"""The backward pass recorded step by step in the snippet's own process (pictures/record.py): the
order is the order autograd's engine ran the nodes, every number is one that flowed, a fan-out's
parts and their sum are both there, and a pass that cannot be recorded in one order fails the build
with one message naming the setting's file and line.

The order is checked against the engine itself, not against the drawing: a custom
``torch.autograd.Function`` writes down when its backward runs, and the recorded steps must put its
node exactly there."""

from __future__ import annotations

import textwrap

import pytest
from throwaway import GRAPH_SNIPPET, new_build, snippet_writer

from snippet_runner import SnippetError
from snippet_runner.pictures import record
from snippet_runner.pictures import steps as words
from snippet_runner.running import snippet as spec


def capture(code: str, setting: str):
    kind, _, rest = setting.partition(" ")
    namespace: dict = {"__name__": "__main__"}
    watch = record.Watch([(kind, 1, spec.picture_options(kind, rest, "t:1"))], namespace, "<snippet>")
    try:
        exec(compile(textwrap.dedent(code), "<snippet>", "exec"), namespace)
        return (*watch.results(), namespace)
    finally:
        watch.close()


def names(data: dict) -> dict[str, str]:
    return {node["id"]: node["name"] for node in data["nodes"]}


def test_the_steps_follow_the_order_the_engine_ran_the_nodes_in():
    """Two branches: which runs first is the engine's choice (it orders ready nodes by when they were
    created), so the recorded order must match what the nodes' own backward code saw, not the walk."""
    code = """
        import torch
        ran = []

        class Tag(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t, label):
                ctx.label = label
                return t * 1

            @staticmethod
            def backward(ctx, grad):
                ran.append(ctx.label)
                return grad, None

        x = torch.tensor(2.0, requires_grad=True)
        a = Tag.apply(x * 3, "first made")
        b = Tag.apply(x * 5, "second made")
        loss = a + b
        loss.backward()
    """
    shown, failed, namespace = capture(code, "graph loss")
    assert failed == []
    data = shown[0]["data"]
    ids = names(data)
    ran_tags = [ids[s["node"]] for s in data["steps"] if ids[s["node"]] == "TagBackward"]
    assert len(ran_tags) == 2 == len(namespace["ran"])
    # the walk visits a's branch first; the engine ran b's first (created later): the record says so
    order = [ids[s["node"]] for s in data["steps"]]
    assert order[0] == "AddBackward0" and order[-1] == "AccumulateGrad"
    first_tag = next(s for s in data["steps"] if ids[s["node"]] == "TagBackward")
    sent_to = ids[data["edges"][first_tag["sent"][0]["edge"]]["to"]]
    assert sent_to == "MulBackward0"
    assert first_tag["sent"][0]["grad"] == "1"
    mul_steps = [s for s in data["steps"] if ids[s["node"]] == "MulBackward0"]
    # what each product sent is x's factor in that branch: the second-made branch (times 5) ran first
    assert [s["sent"][0]["grad"] for s in mul_steps] == ["5", "3"]
    assert namespace["ran"] == ["second made", "first made"]


def test_a_fan_out_records_both_parts_and_the_engines_sum():
    shown, failed, _ = capture(
        """
        import torch
        x = torch.tensor(3.0, requires_grad=True)
        loss = x * 2 + x ** 2
        loss.backward()
        """,
        "graph loss",
    )
    assert failed == []
    data = shown[0]["data"]
    ids = names(data)
    (adding,) = [s for s in data["steps"] if len(s["in"]) > 1]
    assert ids[adding["node"]] == "AccumulateGrad"
    assert sorted(a["grad"] for a in adding["in"]) == ["2", "6"] and adding["received"] == ["8"]
    assert adding["grad_after"] == "8"
    senders = {ids[data["edges"][a["edge"]]["from"]] for a in adding["in"]}
    assert senders == {"MulBackward0", "PowBackward0"}
    sentence = words.sentences(data)[1 + data["steps"].index(adding)][0]
    assert "2 + 6 = 8" in sentence or "6 + 2 = 8" in sentence


def test_each_step_names_its_local_derivative_where_it_is_simple():
    shown, _, _ = capture(GRAPH_SNIPPET.format(x="2.0").replace("# snippet: graph y\n", ""), "graph y")
    data = shown[0]["data"]
    ids = names(data)
    factors = {ids[s["node"]]: [item.get("factor") for item in s["sent"]] for s in data["steps"]}
    assert factors == {
        "PowBackward0": ["2u = 20"],
        "AddBackward0": ["1"],
        "MulBackward0": ["3"],
        "AccumulateGrad": [None],
    }
    texts = [text for text, *_ in words.sentences(data)]
    assert texts[1] == "PowBackward0 receives 1 and multiplies by 2u = 20: it sends 20 to AddBackward0."
    assert texts[-1] == "backward() is done. x.grad = 60."


# -- through the real worker ---------------------------------------------------------------------

THREADS = """
# snippet: graph y
import threading

import torch

x = torch.tensor(2.0, requires_grad=True)


class Elsewhere(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 1

    @staticmethod
    def backward(ctx, grad):
        # a second backward pass, through x's AccumulateGrad, from another thread, while y's runs
        worker = threading.Thread(target=lambda: (x * 5).backward())
        worker.start()
        worker.join()
        return grad


y = Elsewhere.apply(x) ** 2
y.backward()
print(x.grad)
"""


@pytest.fixture
def engine(warm_engine):
    """The process's warm engine (tests/conftest.py). That changed steps fail the build with a diff
    is checked where picture data is approved: tests/engine/test_pictures.py (the same snippet)."""
    return warm_engine


def test_a_backward_pass_in_several_threads_fails_naming_the_setting(engine):
    write = snippet_writer(engine.snippets_dir)
    write("page/threads.py", THREADS)
    with pytest.raises(SnippetError) as caught:
        new_build(engine, "warn").run("page/threads.py")
    message = str(caught.value)
    assert message.startswith("snippets/page/threads.py:1: "), message
    assert "ran in 2 threads" in message
    assert "Traceback" not in message and "\n" not in message.strip()


def test_a_graph_whose_backward_is_never_called_fails_naming_the_setting(engine):
    write = snippet_writer(engine.snippets_dir)
    write(
        "page/never.py",
        "# snippet: timeout 10\n# snippet: graph y\nimport torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * 3\n",
    )
    with pytest.raises(SnippetError) as caught:
        new_build(engine, "warn").run("page/never.py")
    assert str(caught.value).startswith("snippets/page/never.py:2: ") and "y never went backward" in str(caught.value)


def test_a_graph_with_more_edges_than_a_page_can_show_is_refused():
    """The recorded steps stay bounded (record.MAX_EDGES): one node fed the same leaf 130 times."""
    shown, failed, _ = capture(
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = torch.stack([x] * 130).sum()
        y.backward()
        """,
        "graph y",
    )
    assert shown == []
    ((line, message),) = failed
    assert line == 1 and f"edges, more than {record.MAX_EDGES}" in message


def test_the_build_stops_with_one_message_naming_the_setting(tmp_path):
    """The whole build (`make site`'s atomic build of a small project): no traceback, no site."""
    from devtools.scratch import ScratchProject

    project = ScratchProject.minimal(tmp_path)
    project.write("docs/index.md", "# Page\n\n{{ run page/threads.py }}\n")
    project.write("snippets/page/threads.py", THREADS)
    project.write("snippets/page/threads.out", "tensor(14.)\n")
    code, log = project.build()
    assert code != 0
    mentions = [line for line in log.splitlines() if "ran in 2 threads" in line]
    assert len(mentions) == 1, log
    assert "snippets/page/threads.py:1:" in mentions[0], log
    assert "Traceback" not in log and not (project.root / "site" / "index.html").exists()
