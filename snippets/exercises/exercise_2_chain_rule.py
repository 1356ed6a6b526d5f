# %% [markdown]
# # Exercise 2: Chain rule
#
# **Level:** Beginner
#
# Let autograd apply the chain rule through two operations.
#
# 1. Create `x = 2.0` with `requires_grad=True`.
# 2. Build an intermediate `y = 3 * x + 4`, then `z = y ** 2`.
# 3. Call `z.backward()`.
# 4. Print `x.grad` and check that it equals **60**.

# %% tags=["scaffold"]
import torch

x = torch.tensor(2.0, requires_grad=True)

# y = ...          the inner function, 3 * x + 4
# z = ...          the outer function, y squared
# z.backward()     differentiate z with respect to its inputs
# print(x.grad)    should print 60

# %% [markdown]
# ## Solution
#
# Build the two steps exactly as written; autograd records both and chains their derivatives.
# The last line compares the result with the derivative worked out by hand, $6(3x + 4)$.

# %% tags=["solution"]
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y ** 2

z.backward()

print("y =", y.item(), " z =", z.item())
print("dz/dx from autograd:", x.grad)
print("dz/dx by hand, 6 * (3x + 4):", 6 * (3 * x.item() + 4))

# %% [markdown]
# ## Why the answer is 60
#
# $z$ depends on $x$ only through $y$, so the chain rule multiplies the two local derivatives:
#
# $$
# \frac{dz}{dx} = \frac{dz}{dy} \cdot \frac{dy}{dx} = 2y \cdot 3 = 6(3x + 4)
# $$
#
# At $x = 2$ the inner value is $y = 3 \times 2 + 4 = 10$, so
#
# $$
# \frac{dz}{dx} = 2 \times 10 \times 3 = 60
# $$
