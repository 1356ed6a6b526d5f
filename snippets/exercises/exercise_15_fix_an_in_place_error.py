# %% [markdown]
# # Exercise 15: Fix an in-place error
#
# **Level:** Advanced
#
# A layer of three sigmoid units, $h = \sigma(w \odot x)$ element by element, has its
# first unit switched off by writing a 0 into `h`. The forward pass runs; the backward
# pass fails, and the scaffold prints its message.
#
# 1. Read the message. Which tensor was modified, and which operation needed it
#    unmodified?
# 2. Why does that operation need it? Think of how $\sigma'(z)$ can be computed.
# 3. Fix the program without changing what the loss computes, in two ways: once
#    without any in-place write, and once by keeping the write but giving it a tensor
#    of its own to write into.
# 4. Predict the gradient by hand: what does `w.grad[0]` become, and why? Check both
#    fixes against each other and against your values.

# %% tags=["scaffold"]
import torch

w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
x = torch.tensor([1.0, 2.0, 0.5])
c = torch.tensor([1.0, 2.0, 3.0])

h = torch.sigmoid(w * x)
h[0] = 0.0                  # switch the first unit off
loss = (c * h).sum()
try:
    loss.backward()
except RuntimeError as error:
    print("backward():", error)

# %% [markdown] tags=["solution"]
# ## Solution
#
# `torch.sigmoid` saved its output for the backward pass, and `h[0] = 0.0` wrote into
# that very tensor. Multiplying by a mask gives a new tensor and leaves the saved one
# alone; `clone()` gives the write a copy of its own.

# %% tags=["solution"]
import torch

w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
x = torch.tensor([1.0, 2.0, 0.5])
c = torch.tensor([1.0, 2.0, 3.0])

# Fix 1: no in-place write, a mask
mask = torch.tensor([0.0, 1.0, 1.0])
h = torch.sigmoid(w * x) * mask
(c * h).sum().backward()
by_mask = w.grad.clone()
print("with a mask:   w.grad =", by_mask)

# Fix 2: the write goes into a copy
w.grad = None
h = torch.sigmoid(w * x).clone()
h[0] = 0.0
(c * h).sum().backward()
print("with clone():  w.grad =", w.grad)

# By hand: c * s * (1 - s) * x for the units still on
with torch.no_grad():
    s = torch.sigmoid(w * x)
    by_hand = c * s * (1 - s) * x * mask
print("by hand:               ", by_hand)
print("all equal:", torch.allclose(by_mask, w.grad)
      and torch.allclose(by_mask, by_hand))

# %% [markdown] tags=["solution"]
# ## What went wrong, and why both fixes work
#
# The derivative of the sigmoid can be written with its output alone,
# $\sigma'(z) = \sigma(z)\,(1 - \sigma(z))$, so the sigmoid's backward pass uses its
# saved output. Autograd keeps a version counter on a tensor and records it when it
# saves the tensor (the Autograd mechanics note,
# [In-place correctness checks](https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-correctness-checks)).
# The saved output was at version 0; the write `h[0] = 0.0` took it to version 1, and
# the backward pass refused to compute with a value that was no longer the one the
# forward pass produced. The message names the tensor's shape, `[3]`, the operation
# whose output it was, and both versions.
#
# The mask multiplies instead of writing: the product is a new tensor, and the
# sigmoid's saved output is untouched. `clone()` also makes a new tensor, which no
# backward pass saved, so writing into it is safe; its backward pass passes the
# gradient through, with 0 for the element that was overwritten.
#
# The first unit no longer reaches the loss, so `w.grad[0]` is 0. For the others,
# $\frac{\partial L}{\partial w_i} = c_i\, \sigma(w_i x_i)(1 - \sigma(w_i x_i))\, x_i$:
# $2 \times \sigma(-2)(1 - \sigma(-2)) \times 2 = 0.4200$ and
# $3 \times \sigma(1)(1 - \sigma(1)) \times 0.5 = 0.2949$.
