# snippet: raises RuntimeError: does not require grad
import torch

x = torch.tensor(2.0)          # requires_grad was forgotten
y = x ** 2
print("y.requires_grad:", y.requires_grad, " y.grad_fn:", y.grad_fn)
y.backward()
