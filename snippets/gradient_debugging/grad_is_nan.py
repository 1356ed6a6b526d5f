import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)

# A "safe" square root: torch.where picks 0 where x is 0. The forward
# values are fine, yet the gradient of x[0] is NaN.
y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
print("y      =", y)
y.sum().backward()
print("x.grad =", x.grad)
