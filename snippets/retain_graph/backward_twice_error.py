# snippet: raises RuntimeError: backward through the graph a second time
# snippet: graph y saved
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2

y.backward()          # frees the graph's saved values
print(x.grad)

y.backward()          # the graph is gone: this raises
