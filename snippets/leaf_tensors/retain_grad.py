import torch
from snippet_runner.pictures import show_graph

x = torch.tensor(2.0, requires_grad=True)
y = x * 3

y.retain_grad()    # ask autograd to keep y's gradient too

loss = y ** 2
show_graph(loss)
loss.backward()

print("x gradient:", x.grad)
print("y gradient:", y.grad)
