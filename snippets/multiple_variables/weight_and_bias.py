# snippet: graph loss
import torch

x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)

y = x * w + b
loss = y ** 2

loss.backward()

print("x gradient:", x.grad)
print("w gradient:", w.grad)
print("b gradient:", b.grad)
