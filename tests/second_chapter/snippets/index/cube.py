# snippet: graph y
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3
y.backward()
print(x.grad)
