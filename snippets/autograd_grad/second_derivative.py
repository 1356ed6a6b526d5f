import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 3

# create_graph=True records the backward pass itself, so its
# result has a grad_fn and can be differentiated again.
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx   = 3x^2 =", dy_dx)

(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("d2y/dx2 = 6x   =", d2y_dx2)
