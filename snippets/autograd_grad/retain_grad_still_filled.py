import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * 2
y.retain_grad()                 # asks y to keep its gradient
loss = y ** 2

(dloss_dx,) = torch.autograd.grad(loss, x, retain_graph=True)
print("grad(loss, x) returned:", dloss_dx)
print("x.grad:", x.grad, " y.grad:", y.grad)

y.grad = None
(dloss_dy,) = torch.autograd.grad(loss, y)    # y is the input now
print("grad(loss, y) returned:", dloss_dy)
print("x.grad:", x.grad, " y.grad:", y.grad)
