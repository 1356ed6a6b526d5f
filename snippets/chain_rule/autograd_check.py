# snippet: graph y
import torch

x = torch.tensor(2.0, requires_grad=True)

u = 3 * x + 4  # inner function: u = 3x + 4
y = u ** 2     # outer function: y = u²

y.backward()   # autograd applies dy/du · du/dx for us

print(x.grad)
