# %% [markdown]
# # Exercise 18: A custom Function
#
# **Level:** Advanced
#
# Write the sigmoid $s(x) = \frac{1}{1 + e^{-x}}$ as a `torch.autograd.Function` with
# its own backward pass. Its derivative can be written with its output alone:
# $s'(x) = s(x)\,(1 - s(x))$.
#
# 1. In `forward`, save what `backward` will need with `ctx.save_for_backward`. Which
#    tensor is enough, given the formula above?
# 2. In `backward`, read it back from `ctx.saved_tensors` and return the gradient with
#    respect to `x`: by the chain rule, what arrives (`grad_output`) times the local
#    derivative.
# 3. Check your Function with `torch.autograd.gradcheck` on a random input in
#    double precision. Why double precision?
# 4. Use it in the loss `(Sigmoid.apply(x) * 3).sum()` at
#    `x = [-2.0, 0.0, 1.0]` and compare `x.grad` with the same loss built on
#    `torch.sigmoid`.

# %% tags=["scaffold"]
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # Your code: keep what backward will need.
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        # Your code: the gradient with respect to x.
        return None


print("Sigmoid is a Function:",
      issubclass(Sigmoid, torch.autograd.Function))

# Your code: steps 3 and 4 of the task.

# %% [markdown] tags=["solution"]
# ## Solution
#
# Saving the output rather than the input lets `backward` use the neat formula
# $s(1 - s)$ without computing the exponential again.

# %% tags=["solution"]
import torch
from torch.autograd import gradcheck


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s * (1 - s)


torch.manual_seed(0)
x64 = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck passes:", gradcheck(Sigmoid.apply, (x64,)))

x = torch.tensor([-2.0, 0.0, 1.0], requires_grad=True)
(Sigmoid.apply(x) * 3).sum().backward()
print("x.grad with our Sigmoid:   ", x.grad)

x2 = torch.tensor([-2.0, 0.0, 1.0], requires_grad=True)
(torch.sigmoid(x2) * 3).sum().backward()
print("x.grad with torch.sigmoid: ", x2.grad)

# %% [markdown] tags=["solution"]
# ## What happened
#
# `gradcheck` nudged each element of the double-precision input, measured how the output
# moved, and found the same slopes as our `backward`. Its
# [documentation](https://docs.pytorch.org/docs/stable/generated/torch.autograd.gradcheck.gradcheck.html)
# says why the input is in double precision: the default tolerances are designed for it,
# and the check will likely fail for a less precise input. In the loss, every output is
# multiplied by 3, so `grad_output` is 3 for each element, and the gradient is
# $3\,s(x)(1 - s(x))$. At $x = 0$, $s = 0.5$ and the gradient is
# $3 \times 0.5 \times 0.5 = 0.75$, the largest: the sigmoid is steepest there.
