import torch

x = torch.tensor(3.0, requires_grad=True)
(first,) = torch.autograd.grad(x**3, x, create_graph=True)
(second,) = torch.autograd.grad(first, x)
print(first.item(), second.item())
