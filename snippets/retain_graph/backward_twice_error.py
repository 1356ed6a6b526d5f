# snippet: raises RuntimeError: backward through the graph a second time
import torch
from snippet_runner.pictures import show_graph

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
# saved=True: also list what the graph saved, and whether it was freed
show_graph(y, saved=True)

y.backward()          # frees the graph's saved values
print(x.grad)

y.backward()          # the graph is gone: this raises
