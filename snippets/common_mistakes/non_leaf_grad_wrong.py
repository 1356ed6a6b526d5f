import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3          # an intermediate (non-leaf) tensor
loss = y ** 2

loss.backward()

print("y.grad:", y.grad)   # None, with a UserWarning from PyTorch
