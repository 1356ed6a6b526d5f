import torch

x = torch.tensor(2.0, requires_grad=True)  # created by you: a leaf
y = x * 3   # produced by an operation: not a leaf
c = torch.tensor(5.0)   # requires no gradient: a leaf by convention

print("x.is_leaf:", x.is_leaf)
print("y.is_leaf:", y.is_leaf)
print("y.grad_fn:", type(y.grad_fn).__name__)
print("c.is_leaf:", c.is_leaf, " c.requires_grad:", c.requires_grad)

c.requires_grad_()      # start tracking c, in place: still a leaf
print("after requires_grad_():", c.is_leaf, c.requires_grad)
