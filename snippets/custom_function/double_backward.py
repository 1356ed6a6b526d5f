import torch
from torch.autograd.function import once_differentiable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2   # torch operations


class CubeOnce(Cube):
    @staticmethod
    @once_differentiable              # backward runs without a graph
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2


x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
print("gradcheck(Cube):    ", torch.autograd.gradcheck(Cube.apply, x))
print("gradgradcheck(Cube):", torch.autograd.gradgradcheck(Cube.apply, x))

print("gradcheck(CubeOnce):    ",
      torch.autograd.gradcheck(CubeOnce.apply, x))
print("gradgradcheck(CubeOnce):",
      torch.autograd.gradgradcheck(CubeOnce.apply, x,
                                   raise_exception=False))

# Why: a second derivative through CubeOnce is refused.
(g,) = torch.autograd.grad(CubeOnce.apply(x).sum(), x,
                           create_graph=True)
print("its first derivative requires grad:", g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])

# With a square after CubeOnce, the gradient arriving at it requires
# grad: its result is marked instead, and the second pass says so.
(g,) = torch.autograd.grad((CubeOnce.apply(x) ** 2).sum(), x,
                           create_graph=True)
print("through a square: requires grad:", g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
