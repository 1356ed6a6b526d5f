"""The exercise solutions compute what the chapter says they should, in a fresh run.

These read the output of each notebook's *solution* cells only (the cells tagged "solution"),
so a scaffold that happened to print the right number would not pass for a solution.
"""

import re

import nbformat
import pytest

from snippet_runner.markdown.notebooks import to_notebook

# All of these read the outcomes of the session's one build of the chapter (the fresh_runs fixture).

EXERCISES = "exercises/exercise_{}.py"


def solution_output(fresh_runs, name: str) -> str:
    outcome = fresh_runs[EXERCISES.format(name)]
    if isinstance(outcome, Exception):
        pytest.fail(str(outcome), pytrace=False)
    notebook = nbformat.reads(to_notebook(outcome), as_version=4)
    texts = [
        "".join(out.get("text", "") for out in cell["outputs"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and "solution" in cell["metadata"].get("tags", [])
    ]
    assert texts, "no solution cell found"
    return "".join(texts)


def test_exercise_1_basic_gradient_is_10(fresh_runs):
    assert "tensor(10.)" in solution_output(fresh_runs, "1_basic_gradient")


def test_exercise_2_chain_rule_gives_60(fresh_runs):
    assert "dz/dx from autograd: tensor(60.)" in solution_output(fresh_runs, "2_chain_rule")


def test_exercise_3_multiple_variables_gives_6_and_4(fresh_runs):
    output = solution_output(fresh_runs, "3_multiple_variables")
    assert "dz/dx: tensor(6.)" in output
    assert "dz/dy: tensor(4.)" in output


def test_exercise_4_accumulates_then_resets(fresh_runs):
    output = solution_output(fresh_runs, "4_gradient_accumulation")
    values = re.findall(r"tensor\(([\d.]+)\)", output)
    assert values[:3] == ["6.", "12.", "0."]


def test_exercise_5_non_scalar_gradient(fresh_runs):
    assert "x.grad: tensor([2., 4., 6.])" in solution_output(fresh_runs, "5_non_scalar_gradient")


def test_exercise_6_training_loop_learns_y_equals_2x(fresh_runs):
    output = solution_output(fresh_runs, "6_mini_training_loop")
    losses = [float(v) for v in re.findall(r"loss=([\d.]+)", output)]
    assert len(losses) >= 10 and losses[-1] < losses[0] / 100
    w, b = map(float, re.search(r"Learned: w=(-?[\d.]+), b=(-?[\d.]+)", output).groups())
    assert abs(w - 2) < 0.05 and abs(b) < 0.1
