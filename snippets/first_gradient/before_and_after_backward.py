import torch

x = torch.tensor(4.0, requires_grad=True)

y = x ** 2

print("Before backward():", x.grad)

y.backward()

print("After backward(): ", x.grad)
