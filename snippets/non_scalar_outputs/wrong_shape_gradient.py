# snippet: raises RuntimeError: Mismatch in shape
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2                       # shape (3,)

v = torch.ones(2)                # shape (2,): does not match y
y.backward(v)
