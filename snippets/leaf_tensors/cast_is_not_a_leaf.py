import torch

# .double() after requires_grad=True: the name w holds the result of
# a cast, a new tensor made by a recorded operation.
w = torch.tensor([1.0, 2.0], requires_grad=True).double()
(w * 3).sum().backward()
print("cast after:  is_leaf", w.is_leaf, " grad_fn",
      type(w.grad_fn).__name__)

# Cast first, then ask for gradients: w is the leaf itself.
w = torch.tensor([1.0, 2.0]).double().requires_grad_()
(w * 3).sum().backward()
print("cast before: is_leaf", w.is_leaf, " w.grad =", w.grad)

# A cast to the dtype v already has returns v itself, still a leaf.
v = torch.tensor([1.0, 2.0], requires_grad=True)
print("v.float() is v:", v.float() is v,
      " v.to(torch.float64) is a leaf:", v.to(torch.float64).is_leaf)
