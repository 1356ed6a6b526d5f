import torch

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)

# Multiplying by a constant saves nothing that the in-place add changes
y = x * 3
y += 1
y.sum().backward()
print("x * 3, then += 1:  x.grad =", x.grad)

# x * x saves x, but the in-place add changes its output h, not x
x.grad = None
h = x * x
print("x * x saved x itself:", h.grad_fn._saved_self is x)
h += 1
h.sum().backward()
print("x * x, then += 1:  x.grad =", x.grad)
