import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
loss = y ** 2

# Ask for the gradients of loss with respect to y and x, and get them
# back as a tuple: no retain_grad(), and nothing is written to .grad.
dloss_dy, dloss_dx = torch.autograd.grad(loss, [y, x])

print("d loss / d y =", dloss_dy)
print("d loss / d x =", dloss_dx)
print("x.grad       =", x.grad)
