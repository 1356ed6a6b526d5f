import torch

x = torch.tensor(2.0, requires_grad=True)  # created by you: a leaf
y = x * 3   # produced by a recorded operation: not a leaf
c = torch.tensor(5.0)   # requires no gradient: a leaf by convention
d = c * 2   # an operation's result, but nothing in it is tracked

print("x.is_leaf:", x.is_leaf)
print("y.is_leaf:", y.is_leaf)
print("y.grad_fn:", type(y.grad_fn).__name__)
print("c.is_leaf:", c.is_leaf, " c.requires_grad:", c.requires_grad)
print("d.is_leaf:", d.is_leaf, " d.grad_fn:", d.grad_fn)

c.requires_grad_()      # start tracking c, in place: still a leaf
print("after requires_grad_():", c.is_leaf, c.requires_grad)

# Integer and boolean results are never tracked, even from x:
v = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
i = v.argmax()
print("v.argmax():", i.dtype, " requires_grad:", i.requires_grad,
      " is_leaf:", i.is_leaf)
m = v > 1.5
print("v > 1.5:   ", m.dtype, " requires_grad:", m.requires_grad,
      " is_leaf:", m.is_leaf)
