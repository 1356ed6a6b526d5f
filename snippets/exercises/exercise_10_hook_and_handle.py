# %% [markdown]
# # Exercise 10: A hook and its handle
#
# **Level:** Intermediate
#
# A hook can change a gradient on its way to `.grad`. Here it clips it.
#
# With `w = 0.5` (tracking gradients), the loss is $(4w - 10)^2$.
#
# 1. Complete the function `clip` in the scaffold so that it returns the gradient it
#    receives limited to the range $[-1, 1]$ (`Tensor.clamp` does that).
# 2. Register it as a hook on `w`, and keep the handle that registering returns.
# 3. Compute the loss, run the backward pass, and print `w.grad`.
# 4. Remove the hook through its handle, clear `w.grad` (set it to `None`), compute the
#    loss again, run the backward pass, and print `w.grad` once more.
#
# Before you run: what gradient does the loss have at $w = 0.5$, before any clipping?

# %% tags=["scaffold"]
import torch

w = torch.tensor(0.5, requires_grad=True)


def clip(grad):
    # Your code: return grad limited to [-1, 1]. A hook that
    # returns a tensor replaces the gradient with it.
    return grad


# Once clip is right, this prints tensor(1.):
print("clip(tensor(5.)) =", clip(torch.tensor(5.0)))
print("w.grad before anything:", w.grad)

# Your code: steps 2 to 4 of the task.

# %% [markdown] tags=["solution"]
# ## Solution
#
# A hook that returns a tensor replaces the gradient with it. After `handle.remove()`
# the same computation gets the plain gradient.

# %% tags=["solution"]
import torch

w = torch.tensor(0.5, requires_grad=True)


def clip(grad):
    return grad.clamp(-1, 1)


handle = w.register_hook(clip)
loss = (4 * w - 10) ** 2
loss.backward()
print("with the clipping hook: w.grad =", w.grad)

handle.remove()
w.grad = None
loss = (4 * w - 10) ** 2
loss.backward()
print("after handle.remove():  w.grad =", w.grad)

# %% [markdown] tags=["solution"]
# ## What happened
#
# The gradient of the loss is
#
# $$
# \frac{d\,\text{loss}}{dw} = 2(4w - 10) \cdot 4 = 8 \times (2 - 10) = -64
# $$
#
# at $w = 0.5$. The hook received $-64$ and returned it clamped to $-1$, which is what
# landed in `w.grad`. Once the handle removed the hook, the same loss gave the full $-64$.
# Without `remove()`, the hook would stay on `w` for every later backward pass.
