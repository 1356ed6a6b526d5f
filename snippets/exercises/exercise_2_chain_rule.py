# %% [markdown]
# # Exercise 2: Chain rule
#
# **Level:** Beginner
#
# Let autograd apply the chain rule through an intermediate tensor.
#
# 1. The scaffold creates `x = 2.0` with `requires_grad=True`.
# 2. Build an intermediate tensor $u = 2x - 1$, then $z = u^3$ from it.
# 3. Run the backward pass from `z`.
# 4. Print `x.grad` and check it against the chain rule worked out by hand.

# %% tags=["scaffold"]
import torch

x = torch.tensor(2.0, requires_grad=True)

# Your code: steps 2 to 4 of the task. Work out dz/dx on paper
# first: which two local derivatives does the chain rule multiply?

# %% [markdown] tags=["solution"]
# ## Solution
#
# Build the two steps exactly as written; autograd records both and chains their derivatives.
# The last line compares the result with the derivative worked out by hand, $6(2x - 1)^2$.

# %% tags=["solution"]
import torch

x = torch.tensor(2.0, requires_grad=True)
u = 2 * x - 1
z = u ** 3

z.backward()

print("u =", u.item(), " z =", z.item())
print("dz/dx from autograd:", x.grad)
print("dz/dx by hand, 6 * (2x - 1)^2:", 6 * (2 * 2.0 - 1) ** 2)

# %% [markdown] tags=["solution"]
# ## Checking the answer by hand
#
# $z$ depends on $x$ only through $u$, so the chain rule multiplies the two local derivatives:
#
# $$
# \frac{dz}{dx} = \frac{dz}{du} \cdot \frac{du}{dx} = 3u^2 \cdot 2 = 6(2x - 1)^2
# $$
#
# At $x = 2$ the inner value is $u = 2 \times 2 - 1 = 3$, so
#
# $$
# \frac{dz}{dx} = 3 \times 3^2 \times 2 = 54
# $$
