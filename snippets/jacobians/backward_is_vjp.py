import torch
from torch.autograd.functional import jacobian


def f(x):
    return torch.stack([x[0] * x[1], x[1] + x[2] ** 2])


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([10.0, -1.0])

y = f(x)
y.backward(v)                  # the gradient argument is v
J = jacobian(f, x.detach())

print("x.grad after y.backward(v):", x.grad)
print("v @ J, the row vector v^T J:", v @ J)
