import torch


def f(x):
    return x[0] ** 2 * x[1] + x[1] ** 3


x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([1.0, -1.0])

# Hessian-vector product: differentiate (gradient . v) once more.
(g,) = torch.autograd.grad(f(x), x, create_graph=True)
(hv,) = torch.autograd.grad(g @ v, x)
print("gradient:        ", g.detach())
print("H v, two passes: ", hv)

# The same from the whole Hessian, built only to check it.
H = torch.autograd.functional.hessian(f, x)
print("H:", H.tolist())
print("H @ v:           ", H @ v)
