import torch

torch.manual_seed(0)
# A small random start: scaled after requires_grad=True.
w = torch.randn(2, requires_grad=True) * 0.01
x = torch.tensor([1.0, 2.0])

loss = (w * x).sum() ** 2
loss.backward()

print("w.is_leaf:", w.is_leaf)
print("w.grad:", w.grad)   # None, with a UserWarning from PyTorch

try:
    torch.optim.SGD([w], lr=0.1)       # an optimizer refuses it
except ValueError as error:
    print("ValueError:", error)
