# %% [markdown]
# # Exercise 8: A weighted backward(v)
#
# **Level:** Intermediate
#
# `y.backward(v)` does not compute the Jacobian $J$ of `y`: it computes $v^\top J$, the
# Jacobian's rows weighted by `v` and added up. With `v` all ones every output counts the
# same; here they do not.
#
# The scaffold builds, at $x = (3, 2)$,
#
# $$
# y = \begin{bmatrix} x_1 x_2 \\ x_1^2 + x_2 \end{bmatrix}
# \qquad\text{and}\qquad
# v = \begin{bmatrix} 2 \\ -1 \end{bmatrix}.
# $$
#
# 1. Write the $2 \times 2$ Jacobian $J$ on paper (row $i$ holds the partial
#    derivatives of $y_i$), and its values at $x = (3, 2)$.
# 2. Predict `x.grad` after `y.backward(v)`: compute $v^\top J$ by hand.
# 3. Run the backward pass and compare.
# 4. Find a scalar whose plain `backward()` gives the same `x.grad`, and check it.
# 5. Check $J$ itself with `torch.autograd.functional.jacobian`.
#
# Before running step 3, also predict `x.grad` for `v = [1, 1]`: which numbers of $J$
# does it add?

# %% tags=["scaffold"]
import torch

x = torch.tensor([3.0, 2.0], requires_grad=True)
y = torch.stack([x[0] * x[1], x[0] ** 2 + x[1]])
v = torch.tensor([2.0, -1.0])
print("y =", y.detach())

# Your code: steps 3 to 5 of the task.

# %% [markdown] tags=["solution"]
# ## Solution
#
# The backward pass weighted by `v`, the same gradient from the weighted sum of the
# outputs, and the Jacobian built by PyTorch, multiplied by `v` as a check.

# %% tags=["solution"]
import torch


def f(x):
    return torch.stack([x[0] * x[1], x[0] ** 2 + x[1]])


x = torch.tensor([3.0, 2.0], requires_grad=True)
v = torch.tensor([2.0, -1.0])

y = f(x)
y.backward(v)
print("x.grad after y.backward(v):", x.grad)

x.grad = None
(v * f(x)).sum().backward()
print("x.grad from (v * y).sum():  ", x.grad)

J = torch.autograd.functional.jacobian(f, x.detach())
print("J =", J)
print("v @ J =", v @ J)
print("ones @ J =", torch.ones(2) @ J)

# %% [markdown] tags=["solution"]
# ## Working it out
#
# Row $i$ of the Jacobian holds the derivatives of $y_i$:
#
# $$
# J = \begin{bmatrix} x_2 & x_1 \\ 2x_1 & 1 \end{bmatrix}
#   = \begin{bmatrix} 2 & 3 \\ 6 & 1 \end{bmatrix}
# \quad\text{at } x = (3, 2).
# $$
#
# $v^\top J$ weights row 1 by 2 and row 2 by $-1$, and adds them:
#
# $$
# v^\top J = 2 \begin{bmatrix} 2 & 3 \end{bmatrix}
#          - 1 \begin{bmatrix} 6 & 1 \end{bmatrix}
#          = \begin{bmatrix} -2 & 5 \end{bmatrix}.
# $$
#
# This is the gradient of the scalar $v^\top y = 2y_1 - y_2$: the weights say how much
# each output counts in it, and a negative weight makes an output count against it.
# That is why `backward(v)` and `(v * y).sum().backward()` fill `x.grad` with the same
# numbers. With `v = [1, 1]` both rows count once, and the gradient is the column sums
# of $J$, $[8, 4]$. In training, `v` is the gradient of the loss with respect to `y`,
# passed down from the layers above.
