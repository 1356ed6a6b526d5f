import torch
from torch.func import grad


class ScaledCube(torch.autograd.Function):
    """y = scale * x ** 3, where scale is a plain Python number."""

    @staticmethod
    def forward(x, scale):            # no ctx: setup_context style
        return scale * x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale             # not a tensor: kept on ctx

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        print("needs_input_grad:", ctx.needs_input_grad)
        grad_x = None
        if ctx.needs_input_grad[0]:
            # written with torch operations: differentiable again
            grad_x = grad_output * 3 * ctx.scale * x ** 2
        return grad_x, None           # None for the number scale


x = torch.tensor(2.0, requires_grad=True)
y = ScaledCube.apply(x, 5.0)
y.backward()
print("x.grad = 15 x^2 =", x.grad)

# setup_context is what lets torch.func transform the Function:
at_two = torch.tensor(2.0)
print("torch.func.grad:", grad(lambda t: ScaledCube.apply(t, 5.0))(at_two))
