import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
y.retain_grad()    # before backward(): keep this intermediate gradient
loss = y ** 2

loss.backward()

print("y.grad:", y.grad)   # d loss / dy = 2 * y = 12
