# snippet: graph loss saved
import torch

x = torch.tensor(2.0, requires_grad=True)   # a leaf
y = x * 3                                   # a non-leaf ...
y.retain_grad()                             # ... that keeps its .grad
z = y + 4                                   # a non-leaf that does not
loss = z ** 2

loss.backward()

print("x.grad:", x.grad, " y.grad:", y.grad)
