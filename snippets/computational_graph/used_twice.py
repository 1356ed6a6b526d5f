# snippet: graph loss
import torch

x = torch.tensor(3.0, requires_grad=True)

a = x * 2          # first use of x:  d a / d x = 2
b = x ** 2         # second use of x: d b / d x = 2x = 6
loss = a + b

loss.backward()
print("x.grad:", x.grad)   # 2 + 6
