# %% [markdown]
# # Exercise 3: Multiple variables
#
# **Level:** Beginner
#
# One backward pass fills the gradients of several inputs at once.
#
# 1. The scaffold creates two tensors that track gradients: `x = 3.0` and `y = -1.0`.
# 2. Build $z = x^2 y + y^3$.
# 3. Run one backward pass.
# 4. Print both gradients, and check them against the partial derivatives
#    you work out by hand.
#
# `y` appears twice in $z$. Before you run anything: does its gradient come
# from one of the two terms, or from both?

# %% tags=["scaffold"]
import torch

x = torch.tensor(3.0, requires_grad=True)
y = torch.tensor(-1.0, requires_grad=True)

# Your code: steps 2 to 4 of the task.

# %% [markdown] tags=["solution"]
# ## Solution
#
# Both `x` and `y` are leaf tensors with `requires_grad=True`, so after one call to
# `backward()` each holds its own partial derivative.

# %% tags=["solution"]
import torch

x = torch.tensor(3.0, requires_grad=True)
y = torch.tensor(-1.0, requires_grad=True)

z = x ** 2 * y + y ** 3
z.backward()

print("z =", z.item())
print("dz/dx:", x.grad, " expected 2xy =", 2 * 3.0 * -1.0)
print("dz/dy:", y.grad,
      " expected x^2 + 3y^2 =", 3.0 ** 2 + 3 * (-1.0) ** 2)

# %% [markdown] tags=["solution"]
# ## Checking the partial derivatives
#
# Treat the other variable as a constant when you differentiate:
#
# $$
# \begin{aligned}
# \frac{\partial z}{\partial x} &= 2xy = 2 \times 3 \times (-1) = -6 \\
# \frac{\partial z}{\partial y} &= x^2 + 3y^2 = 9 + 3 = 12
# \end{aligned}
# $$
#
# `y` appears twice in $z$ (once in the product, once in the cube), and autograd adds
# the contributions of both paths: $x^2 = 9$ from the product and $3y^2 = 3$ from the cube.
