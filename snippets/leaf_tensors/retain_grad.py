# snippet: graph loss
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3

y.retain_grad()    # ask autograd to keep y's gradient too

loss = y ** 2
loss.backward()

print("x gradient:", x.grad)
print("y gradient:", y.grad)
