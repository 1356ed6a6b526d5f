import torch

x = torch.tensor(3.0, requires_grad=True)

y = x ** 3     # y = x³

y.backward()   # dy/dx = 3x²

print(x.grad)
