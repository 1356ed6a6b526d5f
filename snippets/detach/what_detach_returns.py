import torch

x = torch.tensor([2.0, 5.0], requires_grad=True)
y = x * 3                       # recorded: y has a grad_fn
d = y.detach()

print("y:", y)
print("d:", d)
print("d.requires_grad:", d.requires_grad, " d.grad_fn:", d.grad_fn)
print("same memory as y:", d.data_ptr() == y.data_ptr())
print("(d * 4).grad_fn:", (d * 4).grad_fn)   # computed from a constant
