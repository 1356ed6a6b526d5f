import torch
from snippet_runner.pictures import show_graph  # the site's drawing helper

x = torch.tensor(2.0, requires_grad=True)

u = 3 * x + 4  # inner function: u = 3x + 4
y = u ** 2     # outer function: y = u²

show_graph(y)  # draw the graph below, watching what backward() sends along it

y.backward()   # autograd applies dy/du · du/dx for us

print(x.grad)
