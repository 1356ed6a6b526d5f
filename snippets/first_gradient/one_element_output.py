import torch

x = torch.tensor([[2.0]], requires_grad=True)
y = x ** 2            # shape (1, 1): one element, but not 0-d

print("y.shape:", y.shape, " elements:", y.numel())
y.backward()          # no argument needed: there is only one element
print("x.grad:", x.grad)
