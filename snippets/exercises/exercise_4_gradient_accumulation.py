# %% [markdown]
# # Exercise 4: Gradient accumulation
#
# **Level:** Intermediate
#
# See for yourself that `.grad` adds up across backward passes, then clear it.
#
# 1. Create `x = 3.0` with `requires_grad=True`.
# 2. Run two backward passes without clearing the gradient in between, for example by
#    building `y = x ** 2` and calling `y.backward()` twice (build `y` again before the second call).
# 3. Print `x.grad` after each pass and explain what you see.
# 4. Call `x.grad.zero_()` and check that the gradient is back to `tensor(0.)`.

# %% tags=["scaffold"]
import torch

x = torch.tensor(3.0, requires_grad=True)

# First pass:
# y = ...                  build y = x ** 2
# y.backward()
# print(x.grad)

# Second pass, without clearing x.grad:
# y = ...                  build the graph again
# y.backward()
# print(x.grad)            compare with the first value

# Reset:
# x.grad.zero_()
# print(x.grad)

# %% [markdown]
# ## Solution
#
# Each pass builds a fresh graph (`y = x ** 2`), so the second `backward()` is allowed.
# The gradient is not replaced: the second pass adds to what the first one left behind.

# %% tags=["solution"]
import torch

x = torch.tensor(3.0, requires_grad=True)

y = x ** 2
y.backward()
print("After the first backward pass: ", x.grad)

y = x ** 2
y.backward()
print("After the second backward pass:", x.grad)

x.grad.zero_()
print("After x.grad.zero_():          ", x.grad)
zero = torch.tensor(0.0)
print("Reset to tensor(0.)?", torch.equal(x.grad, zero))

# %% [markdown]
# ## What happened
#
# Each pass computes the same derivative, $\frac{dy}{dx} = 2x = 2 \times 3 = 6$.
# PyTorch adds it to the value already stored in `x.grad`:
#
# $$
# 6 + 6 = 12
# $$
#
# `zero_()` clears the stored value in place (the trailing underscore marks an in-place
# operation). In a training loop, `optimizer.zero_grad()` clears the gradient of every
# parameter the optimizer manages, but by default it does not write zeros: it sets each
# `.grad` to `None` (see the "Clearing gradients" page, which runs both).
