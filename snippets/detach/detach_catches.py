# snippet: raises RuntimeError: has been modified by an inplace operation
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.sigmoid(x)      # SigmoidBackward0 saves y for backward

# The same change through detach(): shared memory, and a shared
# version counter, so backward sees that y changed.
y.detach().zero_()
y.sum().backward()
