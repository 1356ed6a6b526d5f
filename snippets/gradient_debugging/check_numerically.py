import torch


def f(x):
    return x ** 2 * torch.exp(-x)


# A central finite difference against autograd, at x = 1.
x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
f(x).backward()
h = 1e-6
with torch.no_grad():
    numeric = (f(x + h) - f(x - h)) / (2 * h)
print(f"autograd: {x.grad.item():.6f}   "
      f"finite difference: {numeric.item():.6f}")
