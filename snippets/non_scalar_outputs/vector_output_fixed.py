import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2

# Supply one upstream gradient per element of y.
y.backward(torch.ones_like(y))
print(x.grad)
