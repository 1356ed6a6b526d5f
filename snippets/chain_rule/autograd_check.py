import torch
from snippet_runner.pictures import show_graph  # the site's drawing helper

x = torch.tensor(2.0, requires_grad=True)

u = 3 * x + 4  # inner function: u = 3x + 4
y = u ** 2     # outer function: y = u²

# draw the graph below, with what backward() sends along each edge
show_graph(y)

y.backward()   # autograd applies dy/du · du/dx for us

print(x.grad)
