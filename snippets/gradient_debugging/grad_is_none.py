import torch

w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0)                  # cause 1: no requires_grad=True
unused = torch.tensor(5.0, requires_grad=True)
scale = torch.tensor(4.0, requires_grad=True)
# cause 5: .double() returns a new, non-leaf tensor; the leaf that
# requires_grad=True made is left without a name
moved = torch.tensor(0.5, requires_grad=True).double()
x = torch.tensor(2.0)

hidden = w * x + b                     # cause 2: a non-leaf tensor
# cause 3: `unused` never takes part in the loss
# cause 4: .detach() cuts scale's only path to the loss
loss = hidden ** 2 + scale.detach() + moved.float()
loss.backward()

print("w.grad:     ", w.grad)          # the one leaf that reached the loss
print("b.grad:     ", b.grad)
print("unused.grad:", unused.grad)
print("scale.grad: ", scale.grad)
print("scale.detach() shares scale's storage:",
      scale.detach().data_ptr() == scale.data_ptr())
# Not leaves, so .grad stays None (reading it would warn):
print("hidden.is_leaf:", hidden.is_leaf,
      " grad_fn:", type(hidden.grad_fn).__name__)
print("moved.is_leaf: ", moved.is_leaf,
      " grad_fn:", type(moved.grad_fn).__name__)
