# snippet: graph loss
import torch

x = torch.tensor(2.0, requires_grad=True)

y = x * 3
z = y + 4
loss = z ** 2

loss.backward()

print(x.grad)
