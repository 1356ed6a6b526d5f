# snippet: graph loss
import torch

x = torch.tensor(3.0, requires_grad=True)

# Each path on its own:
(through_a,) = torch.autograd.grad(x * 2, x)
(through_b,) = torch.autograd.grad(x ** 2, x)
print("path through a = x * 2: ", through_a)
print("path through b = x ** 2:", through_b)

# Both paths in one graph: x is used twice.
a = x * 2
b = x ** 2
loss = a + b

loss.backward()

print("x.grad:", x.grad)
