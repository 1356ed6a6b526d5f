# %% [markdown]
# # Exercise 5: Non-scalar gradient
#
# **Level:** Advanced
#
# `backward()` with no argument works only when the output is a single number.
# Here the output is a vector.
#
# 1. Create `x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)`.
# 2. Build `y = x ** 2`, a vector with three elements.
# 3. Start the backward pass with an explicit gradient: `y.backward(torch.ones_like(y))`.
# 4. Check that `x.grad` is `tensor([2., 4., 6.])`.
#
# (Calling plain `y.backward()` here would raise
# `RuntimeError: grad can be implicitly created only for scalar outputs`.)

# %% tags=["scaffold"]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# y = ...                          build y = x ** 2
# print(y.shape)                   y is not a scalar
# y.backward(torch.ones_like(y))   a gradient for each element
# print(x.grad)

# %% [markdown]
# ## Solution
#
# `torch.ones_like(y)` has the same shape as `y` and is filled with ones, so every element
# of `y` gets the same weight of 1 in the backward pass.

# %% tags=["solution"]
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
print("y =", y, "with shape", tuple(y.shape))

y.backward(torch.ones_like(y))

print("x.grad:", x.grad)
print("matches 2 * x?", torch.equal(x.grad, 2 * x.detach()))

# %% [markdown]
# ## Why an argument is needed
#
# Each element depends only on its own input, $y_i = x_i^2$, so the Jacobian is diagonal.
# `backward(v)` computes the vector-Jacobian product $v^\top J$; with $v$ all ones this is
#
# $$
# \begin{aligned}
# v^\top J &=
# \begin{bmatrix} 1 & 1 & 1 \end{bmatrix}
# \begin{bmatrix} 2x_1 & 0 & 0 \\ 0 & 2x_2 & 0 \\ 0 & 0 & 2x_3 \end{bmatrix} \\
# &= \begin{bmatrix} 2 & 4 & 6 \end{bmatrix}
# \end{aligned}
# $$
#
# Passing ones gives the same result as calling `y.sum().backward()`: it differentiates the
# sum of the outputs, a scalar.
