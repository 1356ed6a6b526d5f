"""Counter-example runs for the general statements of the exercises and of the pages past the first
half (grad modes, detach, torch.autograd.grad, custom Functions, in-place changes, clipping).

As in `test_general_claims.py`: each test tries many cases to break one statement that says
*always, never, every, only, any, cannot, none* or *the only way*, and fails if one does;
`dev/claims.md` names the test beside the claim. Where a statement did not survive, the page was
narrowed, and the test pins the case that broke it, so that the narrowing stays needed. They run
torch directly, in this process: they check PyTorch, not the build.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn
from torch.autograd.function import once_differentiable
from torch.func import grad

# --- the exercises --------------------------------------------------------------------------------


def test_a_plain_backward_leaves_a_non_leaf_grad_none_and_inputs_fills_it():
    """Exercises 5 and 11: "a plain backward() leaves a non-leaf's .grad at None". The word
    "plain" is needed: backward(inputs=[b]) fills a non-leaf's .grad without retain_grad()."""
    makers = {
        "product": lambda a: a * 3,
        "cast": lambda a: a.double(),
        "view": lambda a: a.view(1),
        "exp": lambda a: a.exp(),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the non-leaf .grad warning, read on purpose
        for name, make in makers.items():
            a = torch.tensor(2.0, requires_grad=True)
            b = make(a)
            (b * a).sum().backward(retain_graph=True)
            assert b.grad is None, name
            (b * a).sum().backward(inputs=[b])
            assert b.grad is not None, name


def test_a_hook_stays_for_every_later_backward_pass_until_removed():
    """Exercise 10: "without remove(), the hook would stay on w for every later backward pass",
    tried over new graphs, a retained graph, a cleared .grad and torch.autograd.grad."""
    w = torch.tensor(0.5, requires_grad=True)
    calls = []
    handle = w.register_hook(lambda g: calls.append(g.item()))
    for _ in range(3):
        ((4 * w - 10) ** 2).backward()  # a new graph each time
    loss = (4 * w - 10) ** 2
    loss.backward(retain_graph=True)
    w.grad = None
    loss.backward()
    torch.autograd.grad((4 * w - 10) ** 2, w)
    assert len(calls) == 6
    handle.remove()
    ((4 * w - 10) ** 2).backward()
    assert len(calls) == 6


def test_torch_autograd_grad_needs_create_graph_to_differentiate_a_derivative_again():
    """Exercise 17: "with torch.autograd.grad, a derivative that is differentiated again needs
    create_graph=True", tried on polynomials, a constant derivative, a derivative that contains
    another tracked tensor, and a grad_outputs that requires grad. torch.func.grad nests without
    any flag, which is why the sentence names torch.autograd.grad."""
    w = torch.tensor(1.5, requires_grad=True)
    functions = {
        "x**4 - 3x**2": lambda x: x**4 - 3 * x**2,
        "3x": lambda x: 3 * x,
        "x * w": lambda x: x * w,
        "sin": torch.sin,
    }
    for name, f in functions.items():
        x = torch.tensor(2.0, requires_grad=True)
        (first,) = torch.autograd.grad(f(x), x, grad_outputs=torch.tensor(1.0, requires_grad=True))
        assert first.grad_fn is None and not first.requires_grad, name
        with pytest.raises(RuntimeError, match="does not require grad"):
            torch.autograd.grad(first, x)
        if name != "3x":  # a constant derivative has no graph even with the flag
            (first,) = torch.autograd.grad(f(x), x, create_graph=True)
            assert first.requires_grad, name
    assert grad(grad(lambda x: x**4 - 3 * x**2))(torch.tensor(2.0)).item() == 42.0


def test_the_second_time_error_comes_from_a_pass_that_needs_freed_values():
    """Exercise 6: the "backward through the graph a second time" error means "any pass that
    needs values the graph has freed", not any pass after the first: a graph whose nodes saved
    nothing the pass needs runs again without retain_graph."""
    x = torch.tensor(2.0, requires_grad=True)
    nothing_needed = x + 1
    nothing_needed.backward()
    nothing_needed.backward()
    assert x.grad.item() == 2.0
    for saves in (x * x, x.exp(), x.sin(), x * 3):
        saves.backward()
        with pytest.raises(RuntimeError, match="a second time"):
            saves.backward()


# --- grad modes and detach ----------------------------------------------------------------------


@pytest.mark.parametrize("grad_mode_before", [True, False])
def test_each_grad_mode_block_restores_the_mode_it_found(grad_mode_before):
    """grad-modes.md: "each of the three is a context manager: when the block ends, grad mode is
    what it was before", starting from either mode, nested, and left by an exception."""
    blocks = {
        "no_grad": torch.no_grad,
        "inference_mode": torch.inference_mode,
        "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
        "set_grad_enabled(True)": lambda: torch.set_grad_enabled(True),
        "enable_grad": torch.enable_grad,
    }
    torch.set_grad_enabled(grad_mode_before)
    try:
        for name, block in blocks.items():
            with block(), torch.no_grad():
                pass
            assert torch.is_grad_enabled() is grad_mode_before, name
            with pytest.raises(ValueError), block():
                raise ValueError(name)
            assert torch.is_grad_enabled() is grad_mode_before, name
    finally:
        torch.set_grad_enabled(True)


def test_an_inference_tensor_is_refused_where_it_would_be_saved_and_to_in_place_changes_outside():
    """grad-modes.md: autograd refuses to save an inference tensor for backward, and refuses an
    in-place change to one outside inference mode; where nothing saves it, it is accepted."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.inference_mode():
        c = torch.tensor([3.0, 4.0])
    for saves_c in (lambda: w * c, lambda: torch.dot(w, c), lambda: w / c, lambda: torch.maximum(w, c)):
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            saves_c()
    for saves_nothing_of_c in (lambda: w + c, lambda: w - c):
        saves_nothing_of_c().sum().backward()
    for change in (lambda: c.add_(1), lambda: c.zero_(), lambda: c.mul_(2), lambda: c.__setitem__(0, 1.0)):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
            change()


def test_detach_shares_memory_and_the_version_counter():
    """detach.md: detach() returns a tensor that shares the original's memory, requires no
    gradient and has no grad_fn; in-place changes to it are seen by the version counter."""
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    for t in (x, x * 3, torch.sigmoid(x), x[1:], x.double()):
        d = t.detach()
        assert d.data_ptr() == t.data_ptr() and not d.requires_grad and d.grad_fn is None
        before = t._version
        d.add_(0)
        assert t._version == before + 1


# --- torch.autograd.grad ------------------------------------------------------------------------


def test_torch_autograd_grad_adds_to_no_leaf_grad_but_fills_a_retained_non_leaf():
    """autograd-grad.md: the gradients of the inputs are returned, not added to .grad. That holds
    for every leaf, input or not; a non-leaf with retain_grad() is filled all the same, input or
    not, which is why the page says "a leaf's .grad" and shows the exception."""
    x = torch.tensor(3.0, requires_grad=True)
    z = torch.tensor(2.0, requires_grad=True)
    y = x * 2
    y.retain_grad()
    loss = y**2 * z
    torch.autograd.grad(loss, x, retain_graph=True)
    assert x.grad is None and z.grad is None
    assert y.grad is not None  # not an input, filled
    y.grad = None
    torch.autograd.grad(loss, [y, z])
    assert z.grad is None
    assert y.grad is not None  # an input, filled too


# --- custom Functions ---------------------------------------------------------------------------


class _CubeOnce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


@pytest.mark.parametrize(
    "after",
    [lambda y: y.sum(), lambda y: (y * 2).sum(), lambda y: (y**2).sum(), lambda y: y.exp().sum()],
    ids=["sum", "times 2", "square", "exp"],
)
def test_a_second_derivative_through_once_differentiable_stops_with_an_error(after):
    """custom-function.md: @once_differentiable makes a second derivative through the Function
    stop with an error. The page used to say its result "does not require gradients": false as
    soon as the gradient arriving at it requires grad (square, exp), when the result is marked and
    the error names once_differentiable."""
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(after(_CubeOnce.apply(x)), x, create_graph=True)
    with pytest.raises(RuntimeError, match=r"does not require grad|once_differentiable"):
        g.sum().backward()


def test_once_differentiable_results_do_require_grad_after_a_square():
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((_CubeOnce.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.requires_grad


# --- in-place changes ---------------------------------------------------------------------------


def test_a_leaf_that_requires_grad_refuses_every_recorded_in_place_change():
    """in-place.md: a leaf that requires gradients cannot be changed in place by a recorded
    operation (grad mode on), nor through a view of it; under no_grad it can; through detach()
    or .data the change goes through unrecorded, which is why the page names them."""
    changes = {
        "add_": lambda w: w.add_(1),
        "zero_": lambda w: w.zero_(),
        "mul_": lambda w: w.mul_(2),
        "copy_": lambda w: w.copy_(torch.ones(3)),
        "-=": lambda w: w.__isub__(1),
        "index": lambda w: w.__setitem__(0, 0.0),
        "slice view": lambda w: w[1:].zero_(),
        "view": lambda w: w.view(3).add_(1),
        "unsqueeze view": lambda w: w.unsqueeze(0).mul_(2),
    }
    for name, change in changes.items():
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            change(w)
        with torch.no_grad():
            change(w)
        assert w.is_leaf and w.requires_grad, name
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w.detach().zero_()
    w.data[0] = 5.0
    assert w.tolist() == [5.0, 0.0, 0.0] and w.is_leaf


def test_in_place_without_an_error_can_still_give_a_wrong_gradient_through_data():
    """in-place.md: "if in-place operations raise no error, the gradients computed are correct"
    covers the changes autograd sees. Through .data, a saved output is overwritten with no error
    and the gradient is wrong, for several operations that save their output."""
    for op, derivative in (
        (torch.sigmoid, lambda y: y * (1 - y)),
        (torch.exp, lambda y: y),
        (torch.tanh, lambda y: 1 - y**2),
    ):
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        y = op(x)
        right = derivative(y.detach().clone())
        y.data.mul_(0.5)  # no error
        y.sum().backward()
        assert not torch.allclose(x.grad, right)
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        y = op(x)
        y.detach().mul_(0.5)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


# --- clipping -----------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", [1.5, 2.0, 10.0, 1e4, 1e10])
def test_clip_grad_norm_brings_the_norm_to_max_norm_within_rounding_not_exactly(norm):
    """vanishing-exploding.md: clip_grad_norm_ "brings the total norm to 1, to the printed
    precision". The page said "exactly 1": the factor is max_norm / (norm + 1e-6), so the new
    norm is a hair below max_norm (0.9999995 for a norm of 2), never above it."""
    torch.manual_seed(0)
    params = [nn.Parameter(torch.zeros(3)), nn.Parameter(torch.zeros(2, 2))]
    raw = torch.randn(7)
    raw = raw / raw.norm() * norm
    params[0].grad, params[1].grad = raw[:3].clone(), raw[3:].reshape(2, 2).clone()
    returned = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    after = torch.cat([p.grad.flatten() for p in params]).norm().item()
    assert returned.item() == pytest.approx(norm, rel=1e-5)
    assert after <= 1.0
    assert after == pytest.approx(1.0, abs=1e-5)
    if norm < 1e4:
        assert after < 1.0  # not exactly 1


def test_the_version_counter_counts_in_place_changes_but_not_through_data():
    """in-place.md: a tensor's version counter goes up with each in-place change. The page said
    "every tensor" and "each time an operation changes it in place": a change through .data is
    not counted (the hole detach.md shows), and an inference tensor keeps no counter."""
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = torch.sigmoid(x)
    for change in (lambda t: t.add_(1), lambda t: t.detach().zero_(), lambda t: t.__setitem__(0, 2.0)):
        before = y._version
        with torch.no_grad():
            change(y)
        assert y._version == before + 1
    before = y._version
    y.data.zero_()
    assert y._version == before
    with torch.inference_mode():
        c = torch.ones(2)
    with pytest.raises(RuntimeError, match="do not track version counter"):
        _ = c._version


class _TanhForgettingGradOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return 1 - y**2  # the slip: grad_output is not used


def test_a_backward_without_grad_output_is_right_exactly_where_grad_output_is_one():
    """custom-function.md: forgetting grad_output gives a wrong gradient except where the gradient
    arriving at y is 1. The page said "for every loss except a plain sum"; a sum plus a constant
    is right too, and a scaled sum, a mean or a square are wrong."""
    losses = {
        "sum": (lambda y: y.sum(), True),
        "sum + 5": (lambda y: y.sum() + 5, True),
        "3 * sum": (lambda y: 3 * y.sum(), False),
        "mean": (lambda y: y.mean(), False),
        "square": (lambda y: (y * y).sum(), False),
    }
    for name, (loss, right) in losses.items():
        x = torch.tensor([0.3, -1.2], requires_grad=True)
        loss(_TanhForgettingGradOutput.apply(x)).backward()
        reference = torch.tensor([0.3, -1.2], requires_grad=True)
        loss(torch.tanh(reference)).backward()
        assert torch.allclose(x.grad, reference.grad) is right, name
