# %% [markdown]
# # Exercise 4: Gradient accumulation
#
# **Level:** Intermediate
#
# See for yourself that `.grad` adds up across backward passes, then clear it.
#
# 1. The scaffold creates `x = 1.5` with `requires_grad=True`.
# 2. Run two backward passes without clearing the gradient in between: build
#    $y = x^2 + 5x$ and run the backward pass from it, then build `y` again and
#    run the backward pass once more.
# 3. Print `x.grad` after each pass. Predict both values before you run:
#    what does the second pass do to what the first one left?
# 4. Reset the gradient in place with `zero_()`, and check that it is back
#    to `tensor(0.)`.

# %% tags=["scaffold"]
import torch

x = torch.tensor(1.5, requires_grad=True)

print("x.grad before any pass:", x.grad)

# Your code: steps 2 to 4 of the task. Why must the second pass
# build y again instead of calling backward() on the first y?

# %% [markdown] tags=["solution"]
# ## Solution
#
# The first `backward()` freed its graph, and squaring had saved `x` in it, so a second
# `backward()` on the same `y` would fail (the "retain_graph=True" page shows the error).
# Each pass builds a fresh graph instead. The gradient is not replaced: the second pass
# adds to what the first one left behind.

# %% tags=["solution"]
import torch

x = torch.tensor(1.5, requires_grad=True)

y = x ** 2 + 5 * x
y.backward()
print("After the first backward pass: ", x.grad)

y = x ** 2 + 5 * x
y.backward()
print("After the second backward pass:", x.grad)

x.grad.zero_()
print("After x.grad.zero_():          ", x.grad)
zero = torch.tensor(0.0)
print("Reset to tensor(0.)?", torch.equal(x.grad, zero))

# %% [markdown] tags=["solution"]
# ## What happened
#
# Each pass computes the same derivative, $\frac{dy}{dx} = 2x + 5 = 2 \times 1.5 + 5 = 8$.
# PyTorch adds it to the value already stored in `x.grad`:
#
# $$
# 8 + 8 = 16
# $$
#
# `zero_()` clears the stored value in place (the trailing underscore marks an in-place
# operation). In a training loop, `optimizer.zero_grad()` clears the gradient of every
# parameter the optimizer manages, but by default it does not write zeros: it sets each
# `.grad` to `None` (see the "Clearing gradients" page, which runs both).
