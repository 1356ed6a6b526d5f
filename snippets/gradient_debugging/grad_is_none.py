import torch

w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0)                  # cause 1: no requires_grad=True
unused = torch.tensor(5.0, requires_grad=True)
x = torch.tensor(2.0)

hidden = w * x + b                     # cause 2: a non-leaf tensor
cut = hidden.detach()                  # cause 3: .detach() cuts the graph
loss = hidden ** 2 + cut               # `unused` is never used: cause 4
loss.backward()

print("w.grad:     ", w.grad)          # the one leaf that reached the loss
print("b.grad:     ", b.grad)
print("unused.grad:", unused.grad)
print("cut.requires_grad:", cut.requires_grad)
print("hidden.is_leaf:", hidden.is_leaf, " hidden.grad:", hidden.grad)
