# snippet: raises RuntimeError: modified by an inplace operation
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.exp(x)   # exp saves its output y: its derivative is exp(x) = y

y += 1             # in place: overwrites the y that exp saved
print("y =", y)

y.sum().backward()
