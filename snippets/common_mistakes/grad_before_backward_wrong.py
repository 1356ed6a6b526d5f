import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 2

print("x.grad:", x.grad)   # read too early: nothing has been computed yet

y.backward()
