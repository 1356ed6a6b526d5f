"""The exercise solutions compute what the chapter says they should, in a fresh run; the
exercises are ordered by level; and no scaffold gives its answer away.

The solution tests read the output of each notebook's *solution* cells only (the cells tagged
"solution"), so a scaffold that happened to print the right number would not pass for a solution.
Their expected values are the ones worked out by hand in each solution's explanation, which the
approved output (``snippets/exercises/<name>.out``) shows; the build checks that a fresh run
still prints that output.
"""

import ast
import re

import jupytext
import nbformat
import pytest
import yaml
from real_chapter import ROOT

from snippet_runner.markdown.notebooks import to_notebook

# The solution tests read the outcomes of the session's one build of the chapter (the fresh_runs fixture).

EXERCISES = "exercises/exercise_{}.py"
FOLDER = ROOT / "snippets" / "exercises"
LEVELS = ["Beginner", "Intermediate", "Advanced"]


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


# -- the set: numbering, levels, scaffolds ---------------------------------------------------------


def exercise_files() -> list:
    """The exercise scripts in the order of their numbers."""
    return sorted(FOLDER.glob("exercise_*.py"), key=lambda path: int(path.name.split("_")[1]))


def cells(path, tag: str | None = None, kind: str | None = None) -> list:
    notebook = jupytext.reads(path.read_text(encoding="utf-8"), fmt="py:percent")
    return [
        cell
        for cell in notebook.cells
        if (tag is None or tag in cell.metadata.get("tags", [])) and (kind is None or cell.cell_type == kind)
    ]


def level_of(path) -> str:
    task = cells(path, kind="markdown")[0].source
    found = re.findall(r"^\*\*Level:\*\* (\w+)$", task, re.M)
    assert len(found) == 1 and found[0] in LEVELS, f"{path.name}: one '**Level:** <{'|'.join(LEVELS)}>' line"
    return found[0]


def test_exercises_are_numbered_one_to_n_and_the_nav_lists_them_in_order_under_their_titles():
    paths = exercise_files()
    assert [int(p.name.split("_")[1]) for p in paths] == list(range(1, len(paths) + 1))
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    practice = next(item["Practice"] for item in config["nav"] if isinstance(item, dict) and "Practice" in item)
    listed = next(item["Exercises"] for item in practice if isinstance(item, dict) and "Exercises" in item)
    entries = [next(iter(item.items())) for item in listed if isinstance(item, dict)]
    assert [page for _, page in entries] == [f"exercises/{p.stem}.ipynb" for p in paths]
    for (title, _), path in zip(entries, paths, strict=True):
        heading = cells(path, kind="markdown")[0].source.splitlines()[0]
        assert heading == f"# {title}", (path.name, heading, title)


def test_levels_rise_with_the_numbering_and_the_index_table_gives_the_same_levels():
    levels = [level_of(path) for path in exercise_files()]
    ranks = [LEVELS.index(level) for level in levels]
    assert ranks == sorted(ranks), list(zip(range(1, len(levels) + 1), levels, strict=True))
    assert set(levels) == set(LEVELS)
    index = (ROOT / "docs" / "exercises" / "index.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[Exercise (\d+): [^]]+\]\((exercise_\d+_\w+)\.ipynb\) \| (\w+) \|", index, re.M)
    assert [(int(n), stem, level) for n, stem, level in rows] == [
        (number, path.stem, level) for number, (path, level) in enumerate(zip(exercise_files(), levels), start=1)
    ]


_CODE = (ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.Try, ast.Return, ast.Import)


def commented_code(source: str) -> list[str]:
    """The comment lines of ``source`` that are Python statements doing something (a call, an
    assignment, a loop...): code left in a comment, not prose. Code followed by a note after two
    or more spaces (``# y.backward()    then ...``) counts too, and so does a comment after code."""
    found = []
    for line in source.splitlines():
        if "#" not in line:
            continue
        comment = line.split("#", 1)[1].strip()
        for candidate in (comment, re.split(r"\s{2,}", comment)[0]):
            try:
                tree = ast.parse(candidate)
            except SyntaxError:
                continue
            if any(isinstance(node, _CODE) for node in ast.walk(tree)):
                found.append(line)
                break
    return found


def test_no_scaffold_carries_code_in_its_comments():
    """A scaffold gives the setup and the question; the answer stays in the folded solution."""
    left = {
        path.name: commented_code("\n".join(cell.source for cell in cells(path, tag="scaffold")))
        for path in exercise_files()
    }
    assert {name: lines for name, lines in left.items() if lines} == {}


def test_the_commented_code_check_finds_the_old_scaffold_of_the_hook_exercise():
    """What test_no_scaffold_carries_code_in_its_comments would have caught: the hook exercise's
    scaffold as it was, every line of its answer commented out, and prose that merely looks like code."""
    old = (
        "w = torch.tensor(0.5, requires_grad=True)\n\n"
        "# handle = w.register_hook(lambda g: g.clamp(-1, 1))\n"
        "# loss = (4 * w - 10) ** 2\n"
        "# loss.backward()\n"
        "# print(w.grad)                    clipped\n"
        "# handle.remove()\n"
        "# w.grad = None\n"
        "# Your code: steps 2 to 4 of the task.\n"
        "# clear w.grad and b.grad\n"
        "# What is a.grad now?\n"
    )
    assert len(commented_code(old)) == 6  # every line of the answer, none of the prose


def test_every_exercise_has_a_scaffold_and_a_solution_that_print_something(fresh_runs):
    for path in exercise_files():
        name = path.stem.removeprefix("exercise_")
        assert cells(path, tag="scaffold") and cells(path, tag="solution"), path.name
        assert solution_output(fresh_runs, name).strip(), path.name


# -- each solution ----------------------------------------------------------------------------------


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


def test_exercise_5_the_six_predictions(fresh_runs):
    output = solution_output(fresh_runs, "5_predict_the_output")
    for line in [
        "1. a.grad: tensor(13.)",  # 6a + 1: three paths add
        "2. b.is_leaf: False  b.requires_grad: True",
        "3. a.grad: tensor(18.)",  # + k = 5, accumulated
        "4. k.grad: None  k.requires_grad: False",
        "5. a.grad: tensor(20.)",  # + 2: the detached factor is a constant
        "6. flag.requires_grad: False  dtype: torch.bool",
    ]:
        assert line in output
    assert "flag.requires_grad_(): only Tensors of floating point" in output


def test_exercise_5_scaffold_prints_nothing_to_predict_from(fresh_runs):
    assert tagged_output(fresh_runs, "5_predict_the_output", "scaffold") == ""


def test_exercise_6_retain_grad_keeps_and_retain_graph_allows_one_more_pass(fresh_runs):
    output = solution_output(fresh_runs, "6_retain_graph_and_retain_grad")
    assert "after the first pass:  h.grad = tensor(-3.5000)  x.grad = tensor(-10.5000)" in output
    assert "after the second pass: h.grad = tensor(-7.)  x.grad = tensor(-21.)" in output
    assert "third pass: Trying to backward through the graph a second time" in output


def test_exercise_7_non_scalar_gradient(fresh_runs):
    output = solution_output(fresh_runs, "7_non_scalar_gradient")
    assert "x.grad: tensor([12.0000,  3.0000,  0.7500])" in output
    assert "matches 3 * x ** 2? True" in output
    assert "from (x ** 3).sum(): tensor([12.0000,  3.0000,  0.7500])" in output


def test_exercise_7_scaffold_shows_the_error_to_fix(fresh_runs):
    scaffold = tagged_output(fresh_runs, "7_non_scalar_gradient", "scaffold")
    assert "grad can be implicitly created only for scalar outputs" in scaffold


def test_exercise_8_weighted_vjp_is_v_transposed_j(fresh_runs):
    output = solution_output(fresh_runs, "8_weighted_vector_jacobian_product")
    assert "x.grad after y.backward(v): tensor([-2.,  5.])" in output  # 2 * [2, 3] - [6, 1]
    assert "x.grad from (v * y).sum():   tensor([-2.,  5.])" in output
    assert "J = tensor([[2., 3.],\n        [6., 1.]])" in output
    assert "v @ J = tensor([-2.,  5.])" in output
    assert "ones @ J = tensor([8., 4.])" in output


def test_exercise_9_gradient_of_the_length_is_the_unit_vector(fresh_runs):
    output = solution_output(fresh_runs, "9_gradient_of_a_vector_function")
    assert "x.grad = tensor([0.6000, 0.8000]) with shape (2,)" in output
    assert "equal: True" in output


def test_exercise_10_hook_clips_until_its_handle_removes_it(fresh_runs):
    output = solution_output(fresh_runs, "10_hook_and_handle")
    assert "with the clipping hook: w.grad = tensor(-1.)" in output
    assert "after handle.remove():  w.grad = tensor(-64.)" in output


def test_exercise_11_scaffold_shows_three_none_gradients_and_the_solution_fills_them(fresh_runs):
    scaffold = tagged_output(fresh_runs, "11_none_gradient", "scaffold")
    for line in ["A: w_a.grad = None", "B: w_b.grad = tensor(0.0200)", "B: b_b.grad = None", "C: w_c.grad = None"]:
        assert line in scaffold
    output = solution_output(fresh_runs, "11_none_gradient")
    assert "A: w_a.is_leaf = True, grad = tensor(-6.6667, dtype=torch.float64)" in output  # 2/3 * (-10)
    assert "B: w_b.is_leaf = True, grad = tensor(-6.6467)" in output  # the same + 0.02
    assert "B: b_b.is_leaf = True, grad = tensor(-3.)" in output  # 2/3 * (-4.5)
    assert "C: w_c.is_leaf = True, grad = tensor([" in output and "None" not in output


def test_exercise_12_training_loop_learns_y_equals_1_minus_3x(fresh_runs):
    output = solution_output(fresh_runs, "12_mini_training_loop")
    losses = [float(v) for v in re.findall(r"loss=([\d.]+)", output)]
    assert len(losses) >= 10 and losses[-1] < losses[0] / 100
    w, b = map(float, re.search(r"Learned: w=(-?[\d.]+), b=(-?[\d.]+)", output).groups())
    assert abs(w + 3) < 0.05 and abs(b - 1) < 0.1


def test_exercise_12_text_names_the_iteration_counts_its_run_prints(fresh_runs):
    """Issue 49: the text said "about 300" where a run took about 400. Every count the run prints
    is named in the explanation, and the positive inputs take several times as many."""
    output = solution_output(fresh_runs, "12_mini_training_loop")
    counts = {
        (name, rate): int(steps)
        for name, rate, steps in re.findall(r"inputs (.+?), learning rate ([\d.]+): (\d+) iterations", output)
    }
    assert len(counts) == 4, output
    assert counts[("1 to 4", "0.05")] > 5 * counts[("-2 to 2", "0.05")]
    explanation = cells(FOLDER / "exercise_12_mini_training_loop.py", tag="solution", kind="markdown")[-1].source
    for count in counts.values():
        assert re.search(rf"\b{count}\b", explanation), (count, explanation)
    assert "about 300" not in (FOLDER / "exercise_12_mini_training_loop.py").read_text()


def test_exercise_13_fixed_loop_learns_what_the_broken_one_could_not(fresh_runs):
    output = solution_output(fresh_runs, "13_find_the_bug")
    assert "broken order, weight.grad before step(): None" in output
    losses = [float(v) for v in re.findall(r"loss ([\d.]+)", output)]
    assert len(losses) >= 5 and losses[-1] < losses[0] / 1000
    weight, bias = map(float, re.search(r"learned: weight (-?[\d.]+), bias (-?[\d.]+)", output).groups())
    assert abs(weight - 0.5) < 0.01 and abs(bias + 2) < 0.01


def test_exercise_13_scaffold_shows_the_bug(fresh_runs):
    """The scaffold is the broken loop: its loss must not move, or there is no bug to find."""
    text = tagged_output(fresh_runs, "13_find_the_bug", "scaffold")
    losses = set(re.findall(r"loss ([\d.]+)", text))
    assert len(losses) == 1, text


def test_exercise_14_weight_gradient_is_the_outer_product_and_the_batch_sum(fresh_runs):
    output = solution_output(fresh_runs, "14_weight_matrix_gradient")
    assert "delta = tensor([1., 2., 1.])" in output
    assert "W.grad = tensor([[ 2., -1.],\n        [ 4., -2.],\n        [ 2., -1.]])" in output
    assert "outer(delta, x) equal: True" in output
    assert "sum of outer products equal: True" in output
    assert "D.T @ X equal: True" in output


def test_exercise_15_scaffold_raises_the_in_place_error_and_both_fixes_agree(fresh_runs):
    scaffold = tagged_output(fresh_runs, "15_fix_an_in_place_error", "scaffold")
    assert "modified by an inplace operation" in scaffold and "which is output 0 of Sigmoid" in scaffold
    output = solution_output(fresh_runs, "15_fix_an_in_place_error")
    for way in ["with a mask:   ", "with clone():  "]:
        assert f"{way}w.grad = tensor([0.0000, 0.4200, 0.2949])" in output
    assert "all equal: True" in output


def test_exercise_16_where_lets_a_nan_through_and_the_safe_input_stops_it(fresh_runs):
    scaffold = tagged_output(fresh_runs, "16_nan_under_where", "scaffold")
    assert "x.grad = tensor([ 0.3012,     nan, -0.4354])" in scaffold
    output = solution_output(fresh_runs, "16_nan_under_where")
    assert "into the division:  tensor([1., 0., 1.])" in output
    assert "fixed x.grad = tensor([ 0.3012,  0.0000, -0.4354])" in output
    assert "y = tensor([0.8415, 1.0000, 0.4546])" in output  # the values do not change


def test_exercise_17_second_and_third_derivatives(fresh_runs):
    scaffold = tagged_output(fresh_runs, "17_second_derivative", "scaffold")
    assert "does not require grad and does not have a grad_fn" in scaffold
    output = solution_output(fresh_runs, "17_second_derivative")
    assert "f''(2)  = tensor(42., grad_fn=" in output  # 12x^2 - 6
    assert "f'''(2) = tensor(48.)" in output  # 24x
    assert "by hand: 20 42 48" in output


def test_exercise_18_custom_function_passes_gradcheck_and_matches_torch(fresh_runs):
    output = solution_output(fresh_runs, "18_custom_function")
    assert "gradcheck passes: True" in output
    ours = re.search(r"with our Sigmoid: +(tensor\(.*\))", output)[1]
    theirs = re.search(r"with torch.sigmoid: +(tensor\(.*\))", output)[1]
    assert ours == theirs == "tensor([0.3150, 0.7500, 0.5898])"
