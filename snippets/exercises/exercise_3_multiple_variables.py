# %% [markdown]
# # Exercise 3: Multiple variables
#
# **Level:** Intermediate
#
# One backward pass can fill the gradients of several inputs at once.
#
# 1. Create two tensors that track gradients: `x = 4.0` and `y = 5.0`.
# 2. Build `z = x * y + x`.
# 3. Call `z.backward()`.
# 4. Print `x.grad` and `y.grad`, and check them against the partial derivatives
#    you work out by hand.

# %% tags=["scaffold"]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)

# z = ...          build z = x * y + x
# z.backward()     one backward pass
# print(x.grad)    the partial derivative of z with respect to x
# print(y.grad)    the partial derivative of z with respect to y

# %% [markdown]
# ## Solution
#
# Both `x` and `y` are leaf tensors with `requires_grad=True`, so after one call to
# `backward()` each holds its own partial derivative.

# %% tags=["solution"]
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)

z = x * y + x
z.backward()

print("z =", z.item())
print("dz/dx:", x.grad, " expected y + 1 =", y.item() + 1)
print("dz/dy:", y.grad, " expected x =", x.item())

# %% [markdown]
# ## Checking the partial derivatives
#
# Treat the other variable as a constant when you differentiate:
#
# $$
# \begin{aligned}
# \frac{\partial z}{\partial x} &= y + 1 = 5 + 1 = 6 \\
# \frac{\partial z}{\partial y} &= x = 4
# \end{aligned}
# $$
#
# `x` appears twice in $z$ (once in the product, once on its own), and autograd adds
# the contributions of both paths, which is where the $+1$ comes from.
