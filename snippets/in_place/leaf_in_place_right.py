import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# Change a leaf's values outside the graph:
with torch.no_grad():
    w[0] = 0.0
print("w:", w, " still a leaf:", w.is_leaf)

# Or work on a copy that is part of the graph:
v = w.clone()
v[0] = 5.0
v.sum().backward()
print("w.grad through the copy:", w.grad)
