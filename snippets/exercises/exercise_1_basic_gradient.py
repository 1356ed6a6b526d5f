# %% [markdown]
# # Exercise 1: Basic gradient
#
# **Level:** Beginner
#
# Make PyTorch compute your first derivative.
#
# 1. Create a scalar tensor `x` holding `5.0` that tracks gradients (`requires_grad=True`).
# 2. Build `y = x ** 2`.
# 3. Call `y.backward()` to run the backward pass.
# 4. Print `x.grad`, which now holds $\frac{dy}{dx}$ at $x = 5$.
#
# Before you run anything, work out on paper what the answer should be.

# %% tags=["scaffold"]
import torch

x = torch.tensor(5.0, requires_grad=True)

# y = ...          build y = x ** 2 here
# y.backward()     then start the backward pass from y
# print(x.grad)    and read the gradient stored on x

print("x.grad before any backward pass:", x.grad)

# %% [markdown]
# ## Solution
#
# One line builds the function, one line differentiates it, and the result lands in `x.grad`.

# %% tags=["solution"]
import torch

x = torch.tensor(5.0, requires_grad=True)
y = x ** 2

y.backward()

print("y =", y.item())
print("dy/dx at x = 5:", x.grad)

# %% [markdown]
# ## Why the answer is 10
#
# The power rule gives the derivative of $y = x^2$:
#
# $$
# \frac{dy}{dx} = 2x = 2 \times 5 = 10
# $$
#
# `backward()` found the same number by walking the graph from `y` back to `x`,
# and stored it in `x.grad` because `x` is a leaf tensor with `requires_grad=True`.
