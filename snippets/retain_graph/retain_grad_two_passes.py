import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
y.retain_grad()
loss = y ** 2

# Two passes through the same graph: the first must keep the graph.
loss.backward(retain_graph=True)
print("after pass 1: x gradient:", x.grad, " y gradient:", y.grad)

loss.backward()
print("after pass 2: x gradient:", x.grad, " y gradient:", y.grad)
