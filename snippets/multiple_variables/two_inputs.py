import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)

z = x * y

z.backward()

print("dz/dx =", x.grad)
print("dz/dy =", y.grad)
