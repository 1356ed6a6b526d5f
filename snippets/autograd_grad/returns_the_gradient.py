# snippet: graph loss
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * 2
loss = y ** 2

(dloss_dx,) = torch.autograd.grad(loss, x)
print("returned:", dloss_dx)
print("x.grad:  ", x.grad)
