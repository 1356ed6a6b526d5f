# %% [markdown]
# # Exercise 11: A custom Function
#
# **Level:** Advanced
#
# Write the sigmoid $s(x) = \frac{1}{1 + e^{-x}}$ as a `torch.autograd.Function` with
# its own backward pass. Its derivative can be written with its output alone:
# $s'(x) = s(x)\,(1 - s(x))$.
#
# 1. In `forward`, compute `s` with `torch.sigmoid`, save it with
#    `ctx.save_for_backward`, and return it.
# 2. In `backward`, read `s` back from `ctx.saved_tensors` and return
#    `grad_output * s * (1 - s)`.
# 3. Check your Function with `torch.autograd.gradcheck` on a random input in
#    double precision.
# 4. Use it in the loss `(Sigmoid.apply(x) * 3).sum()` at
#    `x = [-2.0, 0.0, 1.0]` and compare `x.grad` with the same loss built on
#    `torch.sigmoid`.

# %% tags=["scaffold"]
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # s = ...
        # ctx.save_for_backward(s)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        # (s,) = ctx.saved_tensors
        # return ...
        return None


# torch.manual_seed(0)
# x = torch.randn(4, dtype=torch.float64, requires_grad=True)
# from torch.autograd import gradcheck
# print(gradcheck(Sigmoid.apply, (x,)))

print("Sigmoid is a Function:",
      issubclass(Sigmoid, torch.autograd.Function))

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
# moved, and found the same slopes as our `backward`. In the loss, every output is
# multiplied by 3, so `grad_output` is 3 for each element, and the gradient is
# $3\,s(x)(1 - s(x))$. At $x = 0$, $s = 0.5$ and the gradient is
# $3 \times 0.5 \times 0.5 = 0.75$, the largest: the sigmoid is steepest there.
