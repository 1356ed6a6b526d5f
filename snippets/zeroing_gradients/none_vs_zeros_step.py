import torch

# Two parameters; the second one takes no part in this step's loss.
for set_to_none in (True, False):
    used = torch.tensor(1.0, requires_grad=True)
    unused = torch.tensor(1.0, requires_grad=True)
    optimizer = torch.optim.SGD([used, unused], lr=0.1, weight_decay=0.5)

    unused.grad = torch.zeros(())     # as if an earlier step had used it
    optimizer.zero_grad(set_to_none=set_to_none)

    (used * 2).backward()             # `unused` receives no gradient
    optimizer.step()
    print(f"set_to_none={set_to_none!s:<5}: unused.grad = {unused.grad!r},"
          f" unused after step = {unused.item():.2f}")
