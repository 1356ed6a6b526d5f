# %% [markdown]
# # Exercise 7: Non-scalar gradient
#
# **Level:** Intermediate
#
# `backward()` with no argument works only when the output has a single element.
# Here the output is a vector, $y = x^3$ element by element, and the scaffold shows
# the error that plain `y.backward()` raises.
#
# 1. Give `backward()` the gradient argument it asks for: a tensor of ones with the
#    shape of `y` (one weight for each element of `y`).
# 2. Before you run it, predict `x.grad`: each $y_i$ depends only on its own $x_i$.
# 3. Check that `x.grad` equals $3x^2$, element by element.
# 4. Which scalar could you call plain `backward()` on to get the same `x.grad`?

# %% tags=["scaffold"]
import torch

x = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
y = x ** 3
print("y has shape", tuple(y.shape))

try:
    y.backward()
except RuntimeError as error:
    print("plain backward():", error)

# Your code: steps 1 to 4 of the task.

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

# Question 4: the sum of the outputs is a scalar
x.grad = None
(x ** 3).sum().backward()
print("from (x ** 3).sum():", x.grad)

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
# Passing ones gives the same result as calling `backward()` on `y.sum()`, the sum of
# the outputs, a scalar: the last line of the run. The next exercise passes a $v$ that is
# not all ones.
