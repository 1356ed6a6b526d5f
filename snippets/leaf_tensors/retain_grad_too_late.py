import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
loss = y ** 2

loss.backward()    # the backward pass has already run ...
y.retain_grad()    # ... so asking now is too late

print("x gradient:", x.grad)
print("y gradient:", y.grad)
