# snippet: raises RuntimeError: does not require grad and does not have a grad_fn
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3

(dy_dx,) = torch.autograd.grad(y, x)      # no create_graph
print("dy/dx:", dy_dx, " grad_fn:", dy_dx.grad_fn)
torch.autograd.grad(dy_dx, x)
