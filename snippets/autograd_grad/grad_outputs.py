import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2                      # three outputs: a vector
s = 10 * x.sum()                # one output: a scalar

# Two outputs in one call: one grad_outputs entry each, shaped
# like its output. The gradients of the two are added.
v = torch.tensor([1.0, 0.0, 1.0])
(g,) = torch.autograd.grad((y, s), x, grad_outputs=(v, torch.tensor(1.0)))
print("returned:           ", g)
print("by hand, v^T J of y:", v * 2 * x.detach())
print("by hand, ds/dx:     ", torch.full((3,), 10.0))
