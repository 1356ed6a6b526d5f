import torch
from torch.autograd.functional import jacobian
from torch.func import jacrev


def f(x):
    # R^3 -> R^2
    return torch.stack([x[0] * x[1], x[1] + x[2] ** 2])


x = torch.tensor([1.0, 2.0, 3.0])

J = jacobian(f, x)
print("jacobian(f, x), shape", tuple(J.shape))
print(J)
print("jacrev(f)(x) is the same:", torch.equal(jacrev(f)(x), J))
