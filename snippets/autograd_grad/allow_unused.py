import torch

x = torch.tensor(2.0, requires_grad=True)
z = torch.tensor(5.0, requires_grad=True)   # loss never uses z
loss = x ** 2

gx, gz = torch.autograd.grad(loss, [x, z], allow_unused=True,
                             retain_graph=True)
print("allow_unused=True:     ", gx, gz)

gx, gz = torch.autograd.grad(loss, [x, z], allow_unused=True,
                             materialize_grads=True)
print("and materialize_grads: ", gx, gz)
