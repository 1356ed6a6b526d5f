import torch

x = torch.tensor(3.0, requires_grad=True)
a = x * 2
b = x ** 2
loss = a + b


seen = set()


def watch(node):
    """Print each node as backward() runs it: what arrives, what leaves."""
    if node in seen:
        return  # reached again through another path
    seen.add(node)
    def report(grad_inputs, grad_outputs):
        name = type(node).__name__
        arrived = [g.item() for g in grad_outputs if g is not None]
        sent = [g.item() for g in grad_inputs if g is not None]
        where = f"sends {sent}" if sent else "adds it to x.grad"
        print(f"{name:<15} receives {arrived}  {where}")
    node.register_hook(report)
    for parent, _ in node.next_functions:
        if parent is not None:
            watch(parent)


watch(loss.grad_fn)
loss.backward()
print("x.grad:", x.grad)
