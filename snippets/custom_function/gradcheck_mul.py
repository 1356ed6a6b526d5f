import torch
from torch.autograd import gradcheck


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        # one gradient per input of forward, in the same order
        return grad_output * b, grad_output * a


class SwappedMul(Mul):
    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * a, grad_output * b  # bug: swapped


# gradcheck compares backward with finite differences: use float64
torch.manual_seed(0)
a = torch.randn(3, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, dtype=torch.float64, requires_grad=True)

print("Mul passes gradcheck:       ", gradcheck(Mul.apply, (a, b)))
print("SwappedMul passes gradcheck:",
      gradcheck(SwappedMul.apply, (a, b), raise_exception=False))
