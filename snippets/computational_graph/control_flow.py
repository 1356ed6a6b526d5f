import torch
from snippet_runner.pictures import show_graph


def f(a):
    b = a * 2
    while b.abs() < 100:      # how often this runs depends on a
        b = b * 2
    if b > 0:                 # and so does which branch is taken
        c = b
    else:
        c = 100 * b
    return c


def nodes(t):
    """Count the backward nodes from t down to the leaf."""
    count, node = 0, t.grad_fn
    while node is not None:
        count += 1
        parents = [n for n, _ in node.next_functions if n is not None]
        node = parents[0] if parents else None
    return count


for value in (30.0, -3.0):
    a = torch.tensor(value, requires_grad=True)
    c = f(a)
    show_graph(c)
    c.backward()
    print(f"a = {value:5}: {nodes(c)} nodes, a.grad = {a.grad},"
          f" c / a = {c.item() / value}")
