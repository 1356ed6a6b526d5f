import torch

x = torch.tensor(2.0, requires_grad=True)

y = x ** 2
y.backward()

print("Before reset:", x.grad)

x.grad.zero_()

print("After reset:", x.grad)
