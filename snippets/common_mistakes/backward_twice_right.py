import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2

# Only because we really do go through this graph twice:
y.backward(retain_graph=True)
print("first backward,  x.grad =", x.grad)

y.backward()   # the last pass lets the graph be freed
print("second backward, x.grad =", x.grad)
