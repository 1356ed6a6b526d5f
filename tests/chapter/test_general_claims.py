"""Counter-example runs for the chapter's general statements.

A sentence that says *always, never, every, only, any, cannot, none* or *the only way* is broken by
one case, and the page's own run shows one case. Each test here tries many cases to break one such
statement, and `dev/claims.md` names the test beside the claim. They run torch directly, in this
process: they check PyTorch, not the build.
"""

from __future__ import annotations

import gc
import inspect
import resource
import warnings
import weakref

import pytest
import torch
from torch import nn


def test_only_floating_point_and_complex_tensors_can_require_gradients():
    """first-gradient.md: only floating-point and complex dtypes can be tracked."""
    accepted, refused = [], []
    # Review (6 December 2026): every dtype torch names, float8, complex32 and uint16 to uint64 too.
    dtypes = {d for d in vars(torch).values() if isinstance(d, torch.dtype)}
    for dtype in dtypes:
        try:
            with warnings.catch_warnings():  # experimental (complex32) and deprecated (quantized)
                warnings.simplefilter("ignore")
                tensor = torch.zeros(2, dtype=dtype)
        except (RuntimeError, TypeError):
            continue  # a dtype this build cannot allocate (quantized ones) is not a case
        try:
            tensor.requires_grad_()
            accepted.append(dtype)
        except RuntimeError:
            refused.append(dtype)
    assert all(d.is_floating_point or d.is_complex for d in accepted)
    assert not any(d.is_floating_point or d.is_complex for d in refused)
    assert len(accepted) >= 6 and torch.int64 in refused and torch.bool in refused


def _untracked_tensors() -> dict[str, torch.Tensor]:
    """Tensors that require no gradient, made every way the chapter shows and a few more."""
    x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    c = torch.tensor([2.0, 2.0, 2.0])
    with torch.no_grad():
        under_no_grad = x * 2
    return {
        "created": c,
        "an operation on untracked tensors": c * 2 + c.exp(),
        "a cast of an untracked tensor": c.double(),
        "a view of an untracked tensor": c[1:],
        "detach()": (x * 3).detach(),
        "under no_grad()": under_no_grad,
        "argmax": x.argmax(),
        "a comparison": x > 1.5,
        "a cast to an integer dtype": x.long(),
        "topk's indices": x.topk(2).indices,
        "sort's indices": x.sort().indices,
        "max's indices": x.max(dim=0).indices,
        "nonzero": x.nonzero(),
        "isnan": x.isnan(),
        "floor division of integers": x.long() // 2,
    }


@pytest.mark.parametrize("how", list(_untracked_tensors()))
def test_a_tensor_that_requires_no_gradient_is_a_leaf(how):
    """first-gradient.md, leaf-tensors.md, cheat-sheet.md: any tensor without requires_grad is a leaf."""
    t = _untracked_tensors()[how]
    assert not t.requires_grad
    assert t.is_leaf
    assert t.grad_fn is None


def test_an_operation_is_recorded_only_when_an_input_requires_grad_and_grad_mode_is_on():
    """leaf-tensors.md, computational-graph.md: no tracked input, or grad mode off, means no node."""
    c = torch.tensor([0.5, 2.0])
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    operations = [
        lambda a: a * 3, lambda a: a + a, lambda a: a.exp(), lambda a: a.sum(), lambda a: a @ a,
        lambda a: torch.sigmoid(a), lambda a: a.clone(), lambda a: a[0], lambda a: a.reshape(2, 1),
        lambda a: torch.stack([a, a]), lambda a: a.double(), lambda a: nn.functional.relu(a),
    ]  # fmt: skip
    for operation in operations:
        assert operation(c).grad_fn is None
        with torch.no_grad():
            assert operation(x).grad_fn is None
        with torch.inference_mode():
            assert operation(x).grad_fn is None
        assert operation(x).grad_fn is not None  # and with a tracked input and grad mode on, a node


def test_integer_and_boolean_results_are_never_tracked():
    """leaf-tensors.md, computational-graph.md: even from tracked inputs, with grad mode on."""
    x = torch.tensor([[1.0, 3.0], [2.0, -1.0]], requires_grad=True)
    results = [
        x.argmax(), x.argmin(dim=1), x > 0, x == x, x.isfinite(), x.long(), x.int(), x.to(torch.bool),
        x.sort().indices, x.topk(1).indices, x.max(dim=0).indices, torch.bucketize(x, torch.tensor([0.0])),
        x.nonzero(), x.sign().long(), torch.searchsorted(torch.tensor([0.0, 2.0]), x.detach()),
    ]  # fmt: skip
    for result in results:
        assert not (result.dtype.is_floating_point or result.dtype.is_complex)
        assert not result.requires_grad and result.grad_fn is None


def test_backward_fills_only_the_leaves_used_or_listed():
    """first-gradient.md, cheat-sheet.md: not every leaf that requires gradients gets one."""
    used = torch.tensor(2.0, requires_grad=True)
    also_used = torch.tensor(3.0, requires_grad=True)
    unused = torch.tensor(5.0, requires_grad=True)
    (used * also_used).backward()
    assert used.grad is not None and also_used.grad is not None and unused.grad is None
    used.grad = also_used.grad = None
    (used * also_used).backward(inputs=[used])
    assert used.grad is not None and also_used.grad is None
    # Review (6 December 2026): multiple-variables.md and real-world.md said every parameter gets
    # a .grad from one loss.backward(); a parameter the forward pass did not use keeps None.
    torch.manual_seed(0)
    used_layer, unused_layer = nn.Linear(2, 1), nn.Linear(2, 1)
    used_layer(torch.randn(3, 2)).sum().backward()
    assert all(p.grad is not None for p in used_layer.parameters())
    assert all(p.grad is None for p in unused_layer.parameters())


def test_backward_adds_into_grad_and_never_replaces_it():
    """common-mistakes.md, gradient-accumulation.md: every pass adds, whatever the operation."""
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for f in (lambda a: (a**2).sum(), lambda a: a.exp().mean(), lambda a: (a @ a) * a.sum(), torch.linalg.norm):
        x.grad = None
        y = f(x)
        y.backward(retain_graph=True)
        once = x.grad.clone()
        y.backward(retain_graph=True)
        torch.testing.assert_close(x.grad, 2 * once)
        (first,) = torch.autograd.grad(f(x), x)
        f(x).backward(inputs=[x])
        torch.testing.assert_close(x.grad, 2 * once + first)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (1, 1, 1), (2,), (2, 1), (0,), (3, 3)])
def test_backward_invents_the_starting_gradient_only_for_one_element(shape, dtype):
    """common-mistakes.md, non-scalar-outputs.md, first-gradient.md: one element, not 0-d, decides.

    Review (6 December 2026): the pages said "one element" and nothing more; a complex output with
    one element is refused too, so the pages now say "one real number".
    """
    x = torch.ones(shape, dtype=dtype, requires_grad=True)
    y = x * 2
    if y.numel() == 1 and not dtype.is_complex:
        y.backward()
        assert x.grad.shape == x.shape
    else:
        with pytest.raises(RuntimeError, match=r"only for (real )?scalar outputs"):
            y.backward()


def test_a_node_runs_only_after_every_node_that_sends_it_a_gradient():
    """computational-graph.md: reverse topological order, on a graph with forks and joins."""
    x = torch.tensor(1.5, requires_grad=True)
    a = x * 2
    b = a.exp() + a**2  # a feeds two nodes
    c = b * a + x.sin()  # a and x are used again further down
    loss = c * b
    order: list[object] = []
    senders: dict[object, set[object]] = {}
    stack, seen = [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda _grads, node=node: order.append(node))
        for child, _ in node.next_functions:
            if child is not None:
                senders.setdefault(child, set()).add(node)
                stack.append(child)
    loss.backward()
    assert set(order) == seen and len(order) == len(seen)  # each node ran once
    for node, its_senders in senders.items():
        assert all(order.index(sender) < order.index(node) for sender in its_senders)


def test_the_graph_is_recorded_anew_on_every_run():
    """computational-graph.md: the same code run twice records two graphs."""
    x = torch.tensor(2.0, requires_grad=True)
    runs = [x * 3 + 4 for _ in range(3)]
    assert len({id(run.grad_fn) for run in runs}) == 3
    assert len({type(run.grad_fn) for run in runs}) == 1


def test_autograd_does_not_build_the_jacobian():
    """non-scalar-outputs.md: a Jacobian of 200,000 by 200,000 float32 would take 160 GB."""
    n = 200_000
    x = torch.rand(n, requires_grad=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    (x**2).backward(torch.ones(n))
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    torch.testing.assert_close(x.grad, 2 * x.detach())
    assert grown_mib < 200


def test_mse_loss_averages_over_every_element():
    """non-scalar-outputs.md: 'mean' divides by the number of elements, not of examples."""
    torch.manual_seed(0)
    for shape in [(4, 1), (4, 3), (2, 3, 5)]:
        a, b = torch.randn(shape), torch.randn(shape)
        torch.testing.assert_close(nn.MSELoss()(a, b), ((a - b) ** 2).sum() / a.numel())


def test_masking_after_a_log_at_zero_cannot_help():
    """non-differentiable.md: masks applied after the operation, of every kind tried, leave a NaN."""
    masks = [
        lambda p, v: torch.where(p > 0, v, torch.zeros_like(v)),
        lambda p, v: v * (p > 0),
        lambda p, v: v.masked_fill(p == 0, 0.0),
        lambda p, v: torch.nan_to_num(v) * (p > 0),
    ]
    for mask in masks:
        p = torch.tensor([0.0, 0.5], requires_grad=True)
        mask(p, p * torch.log(p)).sum().backward()
        assert p.grad[0].isnan()


def test_an_argmax_gives_none_or_an_error_and_never_a_zero():
    """gradient-debugging.md: through an index-valued result, no gradient at all."""
    w = torch.tensor(2.0, requires_grad=True)
    for pick in (torch.argmax, torch.argmin, lambda s: s.max(dim=0).indices, lambda s: s.topk(1).indices):
        scores = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
        (w * pick(scores).float().sum()).backward()
        assert scores.grad is None
        with pytest.raises(RuntimeError, match="does not require grad"):
            pick(scores).float().sum().backward()


def test_anomaly_mode_stops_at_a_nan_and_not_at_an_inf():
    """gradient-debugging.md: every backward result is checked for NaN only."""
    produce_nan = [
        lambda a: torch.sqrt(((a - a.detach()) ** 2).sum()),
        lambda a: torch.where(a > 0, torch.sqrt(a), torch.zeros_like(a)).sum(),
        lambda a: (a * torch.log(a)).sum(),
    ]
    produce_inf = [lambda a: torch.sqrt(a).sum(), lambda a: torch.log(a).sum(), lambda a: (1 / a).sum()]
    for f in produce_nan:
        a = torch.tensor([0.0, 0.0], requires_grad=True)
        with (
            torch.autograd.set_detect_anomaly(True),
            pytest.warns(UserWarning),
            pytest.raises(RuntimeError, match="returned nan values"),
        ):
            f(a).backward()
    for f in produce_inf:
        a = torch.tensor([0.0, 0.0], requires_grad=True)
        with torch.autograd.set_detect_anomaly(True):
            f(a).backward()
        assert a.grad.isinf().all()


def test_a_non_leaf_keeps_no_gradient_without_retain_grad():
    """leaf-tensors.md: backward() does not fill a non-leaf's .grad, however many passes run."""
    x = torch.tensor(2.0, requires_grad=True)
    for make in (lambda: x * 3, lambda: x.double(), lambda: (x * 0.01).exp()):
        y = make()
        loss = y**2
        for _ in range(3):
            loss.backward(retain_graph=True)
        with pytest.warns(UserWarning, match="not a leaf"):
            assert y.grad is None


def test_a_loop_that_builds_a_new_graph_every_iteration_needs_no_retain_graph():
    """retain-graph.md, common-mistakes.md: one backward pass per fresh graph, for several models."""
    torch.manual_seed(0)
    models = [
        nn.Linear(3, 1),
        nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)),
        nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4), nn.Linear(4, 1)),
    ]
    for model in models:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(3):
            optimizer.zero_grad()
            loss = model(torch.randn(5, 3)).pow(2).mean()
            loss.backward()
            optimizer.step()


def test_retain_graph_in_the_carried_state_loop_adds_the_earlier_steps():
    """common-mistakes.md: the error's silencer changes the gradient, detach() does not."""

    def step_two_gradient(cut: bool) -> float:
        w = torch.tensor(0.5, requires_grad=True)
        state = torch.tensor(1.0)
        for _ in range(2):
            state = torch.tanh(w * state + 1)
            w.grad = None
            ((state - 0.2) ** 2).backward(retain_graph=not cut)
            if cut:
                state = state.detach()
        return w.grad.item()

    assert step_two_gradient(cut=False) != pytest.approx(step_two_gradient(cut=True))
    # The page's reason for the error: tanh saves its result for the backward pass.
    state = torch.tanh(torch.tensor(0.5, requires_grad=True) + 1)
    assert state.grad_fn._saved_result.item() == state.item()


def test_an_optimizer_refuses_a_non_leaf():
    """common-mistakes.md: a parameter scaled after requires_grad=True cannot be optimized."""
    w = torch.randn(2, requires_grad=True) * 0.01
    for optimizer in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        with pytest.raises(ValueError, match="non-leaf"):
            optimizer([w], lr=0.1)


class _Box:
    """What a saved-tensor pack hook stores in the graph: an object a weak reference can watch."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


def test_a_retained_graph_keeps_its_saved_tensors_until_nothing_refers_to_it():
    """retain-graph.md: kept while the loss refers to the graph, freed when nothing does."""
    boxes: list[weakref.ref[_Box]] = []

    def pack(tensor: torch.Tensor) -> _Box:
        box = _Box(tensor.detach())  # not the tensor itself: its grad_fn would hold the box
        boxes.append(weakref.ref(box))
        return box

    def forward() -> torch.Tensor:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda box: box.tensor):
            return (x.exp() * x).sum()

    loss = forward()
    loss.backward(retain_graph=True)
    gc.collect()
    assert boxes and all(box() is not None for box in boxes)
    del loss
    gc.collect()
    assert all(box() is None for box in boxes)

    boxes.clear()
    loss = forward()
    loss.backward()  # without retain_graph: freed by the pass, while loss still exists
    gc.collect()
    assert boxes and all(box() is None for box in boxes)


# Added by the review of 6 December 2026 (a reviewer who did not write the pages): each test below
# broke, or tried to break, a general sentence the first record had no counter-example run for.


def test_to_returns_the_tensor_itself_only_when_it_has_nothing_to_change():
    """first-gradient.md, leaf-tensors.md: the same dtype and device give the tensor itself, unless
    copy=True or another memory format is asked for; those give a non-leaf copy, as a cast does."""
    x = torch.ones(1, 2, 3, 4, requires_grad=True)
    assert x.to(torch.float32) is x and x.float() is x and x.to("cpu") is x and x.cpu() is x
    for copy in (
        x.to(torch.float64), x.double(), x.half(),
        x.to(torch.float32, copy=True), x.to(memory_format=torch.channels_last),
    ):  # fmt: skip
        assert copy is not x and not copy.is_leaf and type(copy.grad_fn).__name__ == "ToCopyBackward0"


def test_a_result_from_a_tracked_input_is_tracked_unless_it_reads_only_the_shape():
    """computational-graph.md: one tracked input makes a floating-point result tracked, but a
    function that reads only the input's shape (zeros_like, randn_like, new_ones) records nothing."""
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    for tracked in (x * c, c - x, torch.maximum(x, c), torch.where(c > 3.5, x, c), torch.cat([c, x])):
        assert tracked.grad_fn is not None
    for shape_only in (torch.zeros_like(x), torch.ones_like(x), torch.randn_like(x), x.new_ones(2)):
        assert shape_only.dtype.is_floating_point
        assert shape_only.grad_fn is None and not shape_only.requires_grad


def test_no_grad_records_nothing_unless_a_nested_block_switches_recording_back_on():
    """linear-regression.md: 'a block in which autograd records no operation'."""
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    with torch.no_grad():
        assert (x * 2).grad_fn is None and x.exp().grad_fn is None
        with torch.enable_grad():
            assert (x * 2).grad_fn is not None  # the counter-example the page now names
        assert (x * 2).grad_fn is None


def test_a_backward_pass_does_not_build_the_jacobian_but_functional_jacobian_does():
    """non-scalar-outputs.md, glossary.md: 'Autograd never builds this matrix' was too wide:
    torch.autograd.functional.jacobian builds it on request. The pages now say 'a backward pass'."""
    x = torch.tensor([1.0, 2.0, 3.0])
    jacobian = torch.autograd.functional.jacobian(lambda t: t**2, x)
    torch.testing.assert_close(jacobian, torch.diag(2 * x))


def test_only_tensors_outside_inference_mode_carry_a_version_counter():
    """in-place.md: 'Every tensor carries a version counter' is broken by an inference tensor."""
    ordinary = torch.ones(2)
    ordinary.add_(1)
    assert ordinary._version == 1  # the counter the note describes
    with torch.inference_mode():
        inference = torch.ones(2)
    with pytest.raises(RuntimeError, match="do not track version counter"):
        _ = inference._version


def test_an_in_place_change_to_a_leaf_that_requires_grad_is_refused_even_if_nothing_saved_it():
    """in-place.md: 'An in-place change that touches nothing the graph saved goes through' holds
    for intermediate results, not for a leaf that requires grad or a view of one."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0].mul_(2)
    with torch.no_grad():  # "while grad mode is on": an optimizer's update is allowed
        x.add_(1)
        x[0].mul_(2)
    assert x.tolist() == [4.0, 3.0]
    pairs = [
        (lambda y: y.add_(1), lambda y: y + 1), (lambda y: y.mul_(2), lambda y: y * 2),
        (lambda y: y.clamp_(max=5.0), lambda y: y.clamp(max=5.0)), (lambda y: y.neg_(), lambda y: -y),
    ]  # fmt: skip
    for in_place, out_of_place in pairs:
        z = x * 3  # saves nothing of its result
        in_place(z)
        (changed,) = torch.autograd.grad(z.sum(), x)
        (expected,) = torch.autograd.grad(out_of_place(x * 3).sum(), x)
        torch.testing.assert_close(changed, expected)


def test_a_change_through_data_goes_around_the_version_counter():
    """in-place.md: the note's 'no error means correct gradients' does not cover .data."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.data.mul_(2)  # not seen by the version counter: no error, a wrong gradient
    y.sum().backward()
    assert not torch.allclose(x.grad, x.detach().exp())
    y = x.exp()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.mul_(2)
        y.sum().backward()


def test_every_optimizer_skips_a_parameter_whose_gradient_is_none():
    """zeroing-gradients.md: 'an optimizer skips a parameter whose gradient is None', with weight
    decay where the optimizer has it (which would move a parameter whose gradient is zero)."""
    tried = 0
    for name, cls in vars(torch.optim).items():
        if not (inspect.isclass(cls) and issubclass(cls, torch.optim.Optimizer)) or cls is torch.optim.Optimizer:
            continue
        parameter = nn.Parameter(torch.ones(2, 2))
        options = {"lr": 0.1}
        if "weight_decay" in inspect.signature(cls).parameters and name != "SparseAdam":
            options["weight_decay"] = 0.5
        optimizer = cls([parameter], **options)
        if name == "LBFGS":
            optimizer.step(lambda: torch.tensor(0.0))
        else:
            optimizer.step()
        assert torch.equal(parameter.detach(), torch.ones(2, 2)), name
        tried += 1
    assert tried >= 12


@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 3), (4, 1, 2), (0, 3)])
def test_a_leaf_gradient_has_the_leaf_shape(shape):
    """gradient-shapes.md: 'the rule for every leaf', whatever the shape and however it is used."""
    leaf = torch.ones(shape, requires_grad=True)
    uses = [
        lambda t: (t * 2).sum(), lambda t: t.expand(5, *t.shape).sum(), lambda t: t.reshape(-1).exp().sum(),
        lambda t: (t.unsqueeze(0) * torch.ones(3, *t.shape)).mean(),
    ]  # fmt: skip
    for use in uses:
        leaf.grad = None
        use(leaf).backward()
        assert leaf.grad.shape == leaf.shape


def test_a_graph_that_saved_nothing_can_be_walked_twice():
    """retain-graph.md: 'A graph whose operations saved nothing ... can be walked again.'"""
    for f in (
        lambda t: (t + 1).sum(), lambda t: (t - 2).sum(), lambda t: (-t).reshape(2, 1).sum(),
        lambda t: t[0] + t[1], lambda t: torch.cat([t, t]).sum(),
    ):  # fmt: skip
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = f(x)
        y.backward()
        once = x.grad.clone()
        y.backward()  # no retain_graph, no error
        torch.testing.assert_close(x.grad, 2 * once)
    # Whether a graph saved something is for a run to say: `x * 3` looks as if it saved nothing,
    # but it keeps the 3 as a tensor (`_saved_other`), which the first pass frees.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_every_counter_example_the_claims_record_names_exists():
    """dev/claims.md names its counter-example runs by test name: a renamed or deleted test must not
    leave a row pointing at nothing (the review of 6 December 2026 added this check)."""
    import re
    from pathlib import Path

    record = (Path(__file__).parents[2] / "dev" / "claims.md").read_text()
    named = set(re.findall(r"test_general_claims\.py::(\w+)", record))
    assert named, "the record names no counter-example test"
    missing = sorted(name for name in named if not callable(globals().get(name)))
    assert missing == []


def test_of_the_optimizers_only_sgd_sparseadam_adagrad_and_lbfgs_step_with_a_sparse_gradient():
    """real-world.md: "the others, Adam among them, refuse it" was broken by LBFGS, which turns a
    sparse gradient into a dense one; every other optimizer class in torch.optim refuses it."""
    stepped = set()
    for name, cls in vars(torch.optim).items():
        if not (inspect.isclass(cls) and issubclass(cls, torch.optim.Optimizer)) or cls is torch.optim.Optimizer:
            continue
        embedding = nn.Embedding(10, 3, sparse=True)
        optimizer = cls(embedding.parameters(), lr=0.1)
        embedding(torch.tensor([1, 4])).sum().backward()
        assert embedding.weight.grad.is_sparse
        try:
            optimizer.step(lambda: torch.tensor(0.0)) if name == "LBFGS" else optimizer.step()
            stepped.add(name)
        except RuntimeError as error:
            assert "sparse" in str(error), (name, error)
    assert stepped == {"SGD", "SparseAdam", "Adagrad", "LBFGS"}


def test_autograd_grad_of_one_branch_gives_that_path_alone():
    """computational-graph.md: torch.autograd.grad returns the sum over paths for the loss, one
    path's part only when asked about that branch, and writes nothing to .grad."""
    x = torch.tensor(3.0, requires_grad=True)
    a, b = x * 2, x**2
    loss = a + b
    assert torch.autograd.grad(loss, x, retain_graph=True)[0].item() == 8.0
    assert torch.autograd.grad(a, x)[0].item() == 2.0
    assert x.grad is None
