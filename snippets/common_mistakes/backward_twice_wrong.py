# snippet: raises RuntimeError: backward through the graph a second time
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2

y.backward()
print("first backward, x.grad =", x.grad)

y.backward()   # the graph's saved values were freed by the first call
