import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 2

y.backward()

print("x.grad:", x.grad)   # after the backward pass: dy/dx = 2 * 3 = 6
