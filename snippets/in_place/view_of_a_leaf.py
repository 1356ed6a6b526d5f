# snippet: raises RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# Set the first weight to zero by indexing: w[0] is a view of w.
w[0] = 0.0
