import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2                      # three outputs: a vector

# y is not a scalar: grad_outputs is the v of the product v^T J.
ones = torch.ones(3)
(g,) = torch.autograd.grad(y, x, grad_outputs=ones, retain_graph=True)
print("v = ones:       ", g)   # the gradient of y.sum()

v = torch.tensor([1.0, 0.0, 10.0])
(g,) = torch.autograd.grad(y, x, grad_outputs=v)
print("v = [1, 0, 10]: ", g)   # each 2x weighted by its v
