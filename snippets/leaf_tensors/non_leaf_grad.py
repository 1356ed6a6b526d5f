import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3          # y = 6
loss = y ** 2      # loss = 36

loss.backward()

print("x.grad:", x.grad)
print("y.grad:", y.grad)   # non-leaf: None, and PyTorch warns about it
