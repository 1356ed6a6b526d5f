import torch

# A leaf tensor that autograd should track.
x = torch.tensor(2.0, requires_grad=True)

# The forward pass records y = x ** 2 in the graph.
y = x ** 2

# The backward pass fills x.grad with dy/dx = 2x.
y.backward()

print(x.grad)
