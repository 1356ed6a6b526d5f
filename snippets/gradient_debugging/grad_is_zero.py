import torch

x = torch.tensor([-2.0, 3.0], requires_grad=True)

# ReLU passes no gradient where its input was negative.
torch.relu(x).sum().backward()
print("relu:  x.grad =", x.grad)

# Rounding is flat almost everywhere, so its derivative is 0.
x.grad = None
torch.round(x * 1.3).sum().backward()
print("round: x.grad =", x.grad)

# Cleared with zero_() and then read before the next backward pass.
x.grad.zero_()
print("after zero_(), before backward:", x.grad)
