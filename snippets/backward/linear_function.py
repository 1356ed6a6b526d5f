import torch

x = torch.tensor(5.0, requires_grad=True)

y = 4 * x      # y = 4x

y.backward()   # dy/dx = 4

print(x.grad)
