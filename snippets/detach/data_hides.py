import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.sigmoid(x)      # SigmoidBackward0 saves y for backward
s = torch.sigmoid(x.detach())
print("the right gradient, s * (1 - s):", s * (1 - s))

# Overwrite y in place through .data: autograd is not told.
y.data.zero_()
y.sum().backward()
print("after y.data was zeroed: x.grad =", x.grad)
