import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.exp(x)

z = y + 1          # out of place: a new tensor, the saved y untouched
print("z =", z)

z.sum().backward()
print("x.grad  =", x.grad)
print("exp(x)  =", torch.exp(x.detach()))
