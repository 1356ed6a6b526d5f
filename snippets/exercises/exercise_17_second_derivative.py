# %% [markdown]
# # Exercise 17: A second derivative
#
# **Level:** Advanced
#
# A gradient is a tensor, so autograd can differentiate it again, if the first
# backward pass recorded how it computed it. Take $f(x) = x^4 - 3x^2$ at $x = 2$.
#
# 1. Work out $f'(2)$ and $f''(2)$ on paper.
# 2. The scaffold gets $f'(2)$ from `torch.autograd.grad`, then tries to differentiate
#    it again and fails. Read the message: what does the first derivative lack?
# 3. Change one call so that the second derivative works, and print it.
# 4. Go one step further, to $f'''(2)$. Which calls need the change now?

# %% tags=["scaffold"]
import torch

x = torch.tensor(2.0, requires_grad=True)
f = x ** 4 - 3 * x ** 2

(first,) = torch.autograd.grad(f, x)
print("f'(2) =", first)
try:
    (second,) = torch.autograd.grad(first, x)
except RuntimeError as error:
    print("second derivative:", error)

# %% [markdown] tags=["solution"]
# ## Solution
#
# `create_graph=True` makes the backward pass record its own operations, so the
# gradient it returns has a `grad_fn` and can go through `torch.autograd.grad` again.

# %% tags=["solution"]
import torch

x = torch.tensor(2.0, requires_grad=True)
f = x ** 4 - 3 * x ** 2

(first,) = torch.autograd.grad(f, x, create_graph=True)
print("f'(2)   =", first)

(second,) = torch.autograd.grad(first, x, create_graph=True)
print("f''(2)  =", second)

(third,) = torch.autograd.grad(second, x)
print("f'''(2) =", third)

print("by hand:", 4 * 2 ** 3 - 6 * 2, 12 * 2 ** 2 - 6, 24 * 2)

# %% [markdown] tags=["solution"]
# ## What happened
#
# $$
# f'(x) = 4x^3 - 6x,
# $$
#
# $$
# f''(x) = 12x^2 - 6,
# $$
#
# $$
# f'''(x) = 24x,
# $$
#
# so at $x = 2$ the three derivatives are 20, 42 and 48.
#
# Without `create_graph=True`, the backward pass computes $f'(2)$ with nothing
# recorded: the result is a plain number with no `grad_fn`, and the scaffold's message
# says exactly that ("does not require grad and does not have a grad_fn"). With it, the
# first derivative prints with a `grad_fn`, the graph of $4x^3 - 6x$ that the second
# call differentiates.
#
# With `torch.autograd.grad`, a derivative that is differentiated again needs
# `create_graph=True` in the call that computes it: for $f'''$ the first two calls, and
# not the last, whose result is only printed. The documentation of
# [`torch.autograd.grad`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad.html)
# gives the flag's purpose: it builds the graph of the derivative, to allow higher
# order derivative products, a Hessian-vector product among them.
