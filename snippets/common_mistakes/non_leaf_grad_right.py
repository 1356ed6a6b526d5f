import torch

torch.manual_seed(0)
# Scale first, then ask for gradients: w is the leaf.
w = (torch.randn(2) * 0.01).requires_grad_()
x = torch.tensor([1.0, 2.0])

loss = (w * x).sum() ** 2
loss.backward()

print("w.is_leaf:", w.is_leaf)
print("w.grad:", w.grad)
