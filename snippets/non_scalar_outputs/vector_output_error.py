# snippet: raises RuntimeError: only for scalar outputs
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2

print("y has shape", tuple(y.shape), "- not a scalar")

y.backward()  # no gradient argument for a vector output: this raises
