import torch

x = torch.tensor(2.0, requires_grad=True)  # created by you: a leaf
y = x * 3   # produced by an operation: not a leaf

print("x.is_leaf:", x.is_leaf)
print("y.is_leaf:", y.is_leaf)
print("y.grad_fn:", type(y.grad_fn).__name__)
