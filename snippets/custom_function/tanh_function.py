# snippet: graph loss
import torch


class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)  # keep what backward will need
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        # local derivative 1 - tanh(x)^2, times the gradient from above
        return grad_output * (1 - y ** 2)


x = torch.tensor([-1.0, 0.0, 0.5, 2.0], requires_grad=True)
y = Tanh.apply(x)
loss = (y * y).sum()
loss.backward()
print("y.grad_fn:", type(y.grad_fn).__name__)
print("x.grad with our backward:   ", x.grad)

# The same loss through PyTorch's own tanh
x2 = torch.tensor([-1.0, 0.0, 0.5, 2.0], requires_grad=True)
(torch.tanh(x2) ** 2).sum().backward()
print("x.grad with torch.tanh:     ", x2.grad)
print("agree (allclose):", torch.allclose(x.grad, x2.grad))
