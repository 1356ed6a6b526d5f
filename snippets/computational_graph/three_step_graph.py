# snippet: graph loss
import torch

x = torch.tensor(2.0, requires_grad=True)

y = x * 3
z = y + 4
loss = z ** 2

# Start at the loss and follow the first parent of each node back to x.
node = loss.grad_fn
while node is not None:
    print(type(node).__name__)
    parents = [
        parent for parent, _ in node.next_functions if parent is not None
    ]
    node = parents[0] if parents else None

loss.backward()
print("x.grad:", x.grad)
