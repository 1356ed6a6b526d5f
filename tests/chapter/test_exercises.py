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


def tagged_output(fresh_runs, name: str, tag: str) -> str:
    outcome = fresh_runs[EXERCISES.format(name)]
    if isinstance(outcome, Exception):
        pytest.fail(str(outcome), pytrace=False)
    notebook = nbformat.reads(to_notebook(outcome), as_version=4)
    texts = [
        "".join(out.get("text", "") for out in cell["outputs"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and tag in cell["metadata"].get("tags", [])
    ]
    assert texts, f"no {tag} cell found"
    return "".join(texts)


def solution_output(fresh_runs, name: str) -> str:
    return tagged_output(fresh_runs, name, "solution")


def test_exercise_1_basic_gradient_is_4_75(fresh_runs):
    assert "dy/dx at x = 1.5: tensor(4.7500)" in solution_output(fresh_runs, "1_basic_gradient")


def test_exercise_2_chain_rule_gives_54(fresh_runs):
    assert "dz/dx from autograd: tensor(54.)" in solution_output(fresh_runs, "2_chain_rule")


def test_exercise_3_multiple_variables_gives_minus_6_and_12(fresh_runs):
    output = solution_output(fresh_runs, "3_multiple_variables")
    assert "dz/dx: tensor(-6.)" in output
    assert "dz/dy: tensor(12.)" in output


def test_exercise_4_accumulates_then_resets(fresh_runs):
    output = solution_output(fresh_runs, "4_gradient_accumulation")
    values = re.findall(r"tensor\(([\d.]+)\)", output)
    assert values[:3] == ["8.", "16.", "0."]


def test_exercise_5_non_scalar_gradient(fresh_runs):
    output = solution_output(fresh_runs, "5_non_scalar_gradient")
    assert "x.grad: tensor([12.0000,  3.0000,  0.7500])" in output
    assert "matches 3 * x ** 2? True" in output


def test_exercise_6_training_loop_learns_y_equals_1_minus_3x(fresh_runs):
    output = solution_output(fresh_runs, "6_mini_training_loop")
    losses = [float(v) for v in re.findall(r"loss=([\d.]+)", output)]
    assert len(losses) >= 10 and losses[-1] < losses[0] / 100
    w, b = map(float, re.search(r"Learned: w=(-?[\d.]+), b=(-?[\d.]+)", output).groups())
    assert abs(w + 3) < 0.05 and abs(b - 1) < 0.1


def test_exercise_7_retain_grad_keeps_and_retain_graph_allows_one_more_pass(fresh_runs):
    output = solution_output(fresh_runs, "7_retain_graph_and_retain_grad")
    assert "after the first pass:  h.grad = tensor(-3.5000)  x.grad = tensor(-10.5000)" in output
    assert "after the second pass: h.grad = tensor(-7.)  x.grad = tensor(-21.)" in output
    assert "third pass: Trying to backward through the graph a second time" in output


def test_exercise_8_hook_clips_until_its_handle_removes_it(fresh_runs):
    output = solution_output(fresh_runs, "8_hook_and_handle")
    assert "with the clipping hook: w.grad = tensor(-1.)" in output
    assert "after handle.remove():  w.grad = tensor(-64.)" in output


def test_exercise_9_gradient_of_the_length_is_the_unit_vector(fresh_runs):
    output = solution_output(fresh_runs, "9_gradient_of_a_vector_function")
    assert "x.grad = tensor([0.6000, 0.8000]) with shape (2,)" in output
    assert "equal: True" in output


def test_exercise_10_fixed_loop_learns_what_the_broken_one_could_not(fresh_runs):
    output = solution_output(fresh_runs, "10_find_the_bug")
    assert "broken order, weight.grad before step(): None" in output
    losses = [float(v) for v in re.findall(r"loss ([\d.]+)", output)]
    assert len(losses) >= 5 and losses[-1] < losses[0] / 1000
    weight, bias = map(float, re.search(r"learned: weight (-?[\d.]+), bias (-?[\d.]+)", output).groups())
    assert abs(weight - 0.5) < 0.01 and abs(bias + 2) < 0.01


def test_exercise_10_scaffold_shows_the_bug(fresh_runs):
    """The scaffold is the broken loop: its loss must not move, or there is no bug to find."""
    text = tagged_output(fresh_runs, "10_find_the_bug", "scaffold")
    losses = set(re.findall(r"loss ([\d.]+)", text))
    assert len(losses) == 1, text


def test_exercise_11_custom_function_passes_gradcheck_and_matches_torch(fresh_runs):
    output = solution_output(fresh_runs, "11_custom_function")
    assert "gradcheck passes: True" in output
    ours = re.search(r"with our Sigmoid: +(tensor\(.*\))", output)[1]
    theirs = re.search(r"with torch.sigmoid: +(tensor\(.*\))", output)[1]
    assert ours == theirs == "tensor([0.3150, 0.7500, 0.5898])"
