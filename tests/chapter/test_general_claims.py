"""Counter-example runs for the chapter's general statements.

A sentence that says *always, never, every, only, any, cannot, none* or *the only way* is broken by
one case, and the page's own run shows one case. Each test here tries many cases to break one such
statement, and `dev/claims.md` names the test beside the claim. They run torch directly, in this
process: they check PyTorch, not the build.
"""

from __future__ import annotations

import gc
import resource
import weakref

import pytest
import torch
from torch import nn


def test_only_floating_point_and_complex_tensors_can_require_gradients():
    """first-gradient.md: only floating-point and complex dtypes can be tracked."""
    accepted, refused = [], []
    for dtype in (
        torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
        torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool,
    ):  # fmt: skip
        try:
            torch.zeros(2, dtype=dtype).requires_grad_()
            accepted.append(dtype)
        except RuntimeError:
            refused.append(dtype)
    assert all(d.is_floating_point or d.is_complex for d in accepted)
    assert not any(d.is_floating_point or d.is_complex for d in refused)
    assert len(accepted) == 6


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


@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (1, 1, 1), (2,), (2, 1), (0,), (3, 3)])
def test_backward_invents_the_starting_gradient_only_for_one_element(shape):
    """common-mistakes.md, non-scalar-outputs.md, first-gradient.md: one element, not 0-d, decides."""
    x = torch.ones(shape, requires_grad=True)
    y = x * 2
    if y.numel() == 1:
        y.backward()
        assert x.grad.shape == x.shape
    else:
        with pytest.raises(RuntimeError, match="only for scalar outputs"):
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
