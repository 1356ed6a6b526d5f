# %% [markdown]
# # Exercise 1: Basic gradient
#
# **Level:** Beginner
#
# Make PyTorch compute a derivative for you.
#
# 1. The scaffold creates a scalar tensor `x` holding `1.5` that tracks gradients
#    (`requires_grad=True`).
# 2. Build $y = x^3 - 2x$ from it.
# 3. Run the backward pass from `y` with `backward()`.
# 4. Print the gradient autograd stored on `x`: it is $\frac{dy}{dx}$ at $x = 1.5$.
#
# Before you run anything, work out on paper what the answer should be.

# %% tags=["scaffold"]
import torch

x = torch.tensor(1.5, requires_grad=True)

print("x.grad before any backward pass:", x.grad)

# Your code: steps 2 to 4 of the task.

# %% [markdown] tags=["solution"]
# ## Solution
#
# One line builds the function, one line differentiates it, and the result lands in `x.grad`.

# %% tags=["solution"]
import torch

x = torch.tensor(1.5, requires_grad=True)
y = x ** 3 - 2 * x

y.backward()

print("y =", y.item())
print("dy/dx at x = 1.5:", x.grad)
print("by hand, 3x^2 - 2:", 3 * 1.5 ** 2 - 2)

# %% [markdown] tags=["solution"]
# ## Checking the answer by hand
#
# The power rule, term by term:
#
# $$
# \frac{dy}{dx} = 3x^2 - 2 = 3 \times 2.25 - 2 = 4.75
# $$
#
# `backward()` found the same number by walking the graph from `y` back to `x`,
# and stored it in `x.grad` because `x` is a leaf tensor with `requires_grad=True`.
