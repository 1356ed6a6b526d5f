# %% [markdown]
# # Exercise 4: Gradient accumulation
#
# **Level:** Intermediate
#
# See for yourself that `.grad` adds up across backward passes, then clear it.
#
# 1. Create `x = 1.5` with `requires_grad=True`.
# 2. Run two backward passes without clearing the gradient in between: build
#    `y = x ** 2 + 5 * x` and call `y.backward()`, then build `y` again and call
#    `y.backward()` once more.
# 3. Print `x.grad` after each pass and explain what you see.
# 4. Call `x.grad.zero_()` and check that the gradient is back to `tensor(0.)`.

# %% tags=["scaffold"]
import torch

x = torch.tensor(1.5, requires_grad=True)

# First pass:
# y = ...                  build y = x ** 2 + 5 * x
# y.backward()
# print(x.grad)

# Second pass, without clearing x.grad:
# y = ...                  build the graph again
# y.backward()
# print(x.grad)            compare with the first value

# Reset:
# x.grad.zero_()
# print(x.grad)

# %% [markdown] tags=["solution"]
# ## Solution
#
# Each pass builds a fresh graph, so the second `backward()` is allowed.
# The gradient is not replaced: the second pass adds to what the first one left behind.

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
