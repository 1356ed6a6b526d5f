# snippet: graph c1 title="The graph recorded for a = 30"
# snippet: graph c2 title="The graph recorded for a = -3"
import torch


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


def report(a, c):
    print(f"a = {a.item():5}: {nodes(c)} nodes, a.grad = {a.grad},"
          f" c / a = {c.item() / a.item()}")


a1 = torch.tensor(30.0, requires_grad=True)
c1 = f(a1)
c1.backward()
report(a1, c1)

a2 = torch.tensor(-3.0, requires_grad=True)
c2 = f(a2)
c2.backward()
report(a2, c2)
