# %% [markdown]
# # Exercise 5: Non-scalar gradient
#
# **Level:** Advanced
#
# `backward()` with no argument works only when the output is a single number.
# Here the output is a vector.
#
# 1. Create `x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)`.
# 2. Build `y = x ** 3`, a vector with three elements.
# 3. Start the backward pass with an explicit gradient: `y.backward(torch.ones_like(y))`.
# 4. Check that `x.grad` equals $3x^2$, element by element.
#
# (Calling plain `y.backward()` here would raise
# `RuntimeError: grad can be implicitly created only for scalar outputs`.)

# %% tags=["scaffold"]
import torch

x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)

# y = ...                          build y = x ** 3
# print(y.shape)                   y is not a scalar
# y.backward(torch.ones_like(y))   a gradient for each element
# print(x.grad)

# %% [markdown] tags=["solution"]
# ## Solution
#
# `torch.ones_like(y)` has the same shape as `y` and is filled with ones, so every element
# of `y` gets the same weight of 1 in the backward pass.

# %% tags=["solution"]
import torch

x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
y = x ** 3
print("y =", y, "with shape", tuple(y.shape))

y.backward(torch.ones_like(y))

print("x.grad:", x.grad)
expected = 3 * x.detach() ** 2
print("matches 3 * x ** 2?", torch.equal(x.grad, expected))

# %% [markdown] tags=["solution"]
# ## Why an argument is needed
#
# Each element depends only on its own input, $y_i = x_i^3$, so the Jacobian is diagonal.
# `backward(v)` computes the vector-Jacobian product $v^\top J$; with $v$ all ones this is
#
# $$
# \begin{aligned}
# v^\top J &=
# \begin{bmatrix} 1 & 1 & 1 \end{bmatrix}
# \begin{bmatrix} 3x_1^2 & 0 & 0 \\ 0 & 3x_2^2 & 0 \\ 0 & 0 & 3x_3^2 \end{bmatrix} \\
# &= \begin{bmatrix} 12 & 3 & 0.75 \end{bmatrix}
# \end{aligned}
# $$
#
# Passing ones gives the same result as calling `y.sum().backward()`: it differentiates the
# sum of the outputs, a scalar.
