import torch

w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0)                  # cause 1: no requires_grad=True
unused = torch.tensor(5.0, requires_grad=True)
scale = torch.tensor(4.0, requires_grad=True)
x = torch.tensor(2.0)

hidden = w * x + b                     # cause 2: a non-leaf tensor
# cause 3: `unused` never takes part in the loss
# cause 4: .detach() cuts scale's only path to the loss
loss = hidden ** 2 + scale.detach()
loss.backward()

print("w.grad:     ", w.grad)          # the one leaf that reached the loss
print("b.grad:     ", b.grad)
print("unused.grad:", unused.grad)
print("scale.grad: ", scale.grad)
print("hidden.is_leaf:", hidden.is_leaf, " hidden.grad:", hidden.grad)
