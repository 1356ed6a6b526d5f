# snippet: graph y saved
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2

# Keep the graph's saved values so that a second backward pass is possible.
y.backward(retain_graph=True)
print(x.grad)

# Second pass through the same graph: another 2 * 2 = 4 is added to x.grad.
y.backward()
print(x.grad)
