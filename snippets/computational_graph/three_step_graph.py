import torch
from snippet_runner.pictures import show_graph

x = torch.tensor(2.0, requires_grad=True)

y = x * 3
z = y + 4
loss = z ** 2

show_graph(loss)  # before backward(), so it sees the gradients flow

loss.backward()

print(x.grad)
