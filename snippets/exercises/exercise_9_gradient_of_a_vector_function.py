# %% [markdown]
# # Exercise 9: Gradient of a function of a vector
#
# **Level:** Intermediate
#
# The length of a vector, $f(x) = \|x\| = \sqrt{x_1^2 + x_2^2}$, is a scalar function of a
# vector.
#
# 1. The scaffold creates `x = [3.0, 4.0]`, tracking gradients.
# 2. Compute its length `f` from elementwise operations (a square, a sum and a square
#    root), and run the backward pass from it.
# 3. Print `x.grad` and its shape. Predict the shape first: how many numbers does the
#    gradient of one scalar with respect to two inputs have?
# 4. Derive $\nabla f$ by hand with the chain rule, and check `x.grad` against it.

# %% tags=["scaffold"]
import torch

x = torch.tensor([3.0, 4.0], requires_grad=True)

print("x has shape", tuple(x.shape))

# Your code: steps 2 to 4 of the task. Compare with a value
# computed from tensors that autograd does not track.

# %% [markdown] tags=["solution"]
# ## Solution
#
# `f` is a scalar, so `backward()` needs no argument, and `x.grad` has the shape of `x`.

# %% tags=["solution"]
import torch

x = torch.tensor([3.0, 4.0], requires_grad=True)
f = torch.sqrt((x ** 2).sum())
f.backward()

print("f =", f.item())
print("x.grad =", x.grad, "with shape", tuple(x.grad.shape))
by_hand = x.detach() / f.detach()
print("x / |x| =", by_hand)
print("equal:", torch.allclose(x.grad, by_hand))

# %% [markdown] tags=["solution"]
# ## Checking the gradient by hand
#
# Each partial derivative follows from the chain rule through the square root:
#
# $$
# \frac{\partial f}{\partial x_i} = \frac{1}{2\sqrt{x_1^2 + x_2^2}} \cdot 2x_i
# = \frac{x_i}{\|x\|}
# $$
#
# With $x = [3, 4]$ the length is 5, so $\nabla f = [3/5, 4/5] = [0.6, 0.8]$: a vector of
# length 1 pointing the same way as $x$. The length grows fastest in the direction of $x$
# itself.
