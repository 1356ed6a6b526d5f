# snippet: raises RuntimeError: Set allow_unused=True if this is the desired behavior
import torch

x = torch.tensor(2.0, requires_grad=True)
z = torch.tensor(5.0, requires_grad=True)   # loss never uses z
loss = x ** 2

torch.autograd.grad(loss, [x, z])
