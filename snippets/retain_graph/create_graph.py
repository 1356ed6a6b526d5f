import torch

x = torch.tensor(3.0, requires_grad=True)

# create_graph=True records the backward pass itself as a new graph,
# so the first derivative can be differentiated again.
y = x ** 3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx   =", dy_dx)               # 3 * x**2
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("d2y/dx2 =", d2y_dx2)             # 6 * x

# Without it the first derivative is a plain value, cut off the graph.
y = x ** 3
(plain,) = torch.autograd.grad(y, x)
print("without create_graph:", plain,
      " requires_grad =", plain.requires_grad)
