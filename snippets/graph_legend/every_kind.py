import torch
from snippet_runner.pictures import show_graph

x = torch.tensor(2.0, requires_grad=True)   # a leaf
y = x * 3                                   # a non-leaf ...
y.retain_grad()                             # ... that keeps its .grad
z = y + 4                                   # a non-leaf that does not
loss = z ** 2

# saved=True also lists the tensors each node saved for backward
show_graph(loss, saved=True)
loss.backward()

print("x.grad:", x.grad, " y.grad:", y.grad)
