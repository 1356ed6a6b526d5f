import torch

x = torch.tensor(1.0, requires_grad=True)

# First pass: y = x**2, so dy/dx = 2x = 2 at x = 1.
y = x ** 2
y.backward()
first = x.grad.clone()
print("After first backward:", x.grad)

# Second pass on a freshly built graph, without clearing x.grad.
y = x ** 2
y.backward()
print("Second pass contributed:", x.grad - first)
print("Accumulated in x.grad:", x.grad)
