import torch
from torch.autograd.functional import hessian
from torch.func import hessian as func_hessian


def f(x):
    return x[0] ** 3 + x[0] * x[1] ** 2


x = torch.tensor([1.0, 2.0])
H = hessian(f, x)
print("hessian(f, x):", H.tolist())
print("torch.func.hessian agrees:", torch.equal(func_hessian(f)(x), H))
print("symmetric:", torch.equal(H, H.T))
